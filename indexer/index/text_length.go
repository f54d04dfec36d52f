package index

import (
	"sync"

	"github.com/ontoindex/ontoindex/indexer/query"
)

// textLength is the number of terms of a text property over all its
// documents: BM25's average field length is it over the documents with a
// value. Builds and updates keep it; a snapshot read from disk counts it
// the first time a relevance search needs it (the file does not hold it).
type textLength struct {
	mu     sync.Mutex
	known  bool
	tokens int64
}

func knownLength(tokens int64) *textLength { return &textLength{known: true, tokens: tokens} }

// get returns the count, counting it with count when unknown.
func (l *textLength) get(count func() int64) int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.known {
		l.tokens, l.known = count(), true
	}
	return l.tokens
}

// plus is the length after an update that adds delta terms: unknown stays
// unknown (it is counted on the new snapshot when needed).
func (l *textLength) plus(delta int64) *textLength {
	if l == nil {
		return &textLength{}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.known {
		return &textLength{}
	}
	return knownLength(l.tokens + delta)
}

// textTokens is the number of terms of pi over the live documents.
func (s *Snapshot) textTokens(pi *propertyIndex) int64 {
	l := pi.text.length
	if l == nil {
		l = &textLength{} // not cached; every snapshot made here sets one
	}
	return l.get(func() int64 {
		var n int64
		var buf []valueKey
		it := s.alive.Iterator()
		for it.HasNext() {
			d := it.Next()
			if pi.nulls.Contains(d) {
				continue
			}
			if pi.column != nil {
				n += int64(len(query.Analyze(pi.column.get(d).exact)))
				continue
			}
			buf = pi.listColumn.get(d, buf)
			for _, vk := range buf {
				n += int64(len(query.Analyze(vk.exact)))
			}
		}
		return n
	})
}

// countedTermSet returns the distinct terms of texts and how many terms
// they hold.
func countedTermSet(texts []string) ([]string, int) {
	var out []string
	for _, t := range texts {
		out = append(out, query.Analyze(t)...)
	}
	n := len(out)
	return sortedSet(out), n
}
