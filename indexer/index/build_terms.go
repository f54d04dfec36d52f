package index

import (
	"slices"
	"strings"
)

// termPairBlock is how many (term, document) pairs one block of a
// termsBuilder holds: 512 KiB. Blocks are never copied to grow, so a build
// holds its pairs once, not the two or three copies of an appended slice
// while it doubles.
const termPairBlock = 1 << 16

// termsBuilder collects the (term, document) pairs of a text property:
// each distinct term once, and a pair as one word.
type termsBuilder struct {
	ids   map[string]uint32
	names []string
	// pairs holds term id << 32 | document, in blocks of termPairBlock;
	// counts the pairs of each term id and last the last document of each,
	// so that finish places each pair by counting rather than sorting.
	pairs  [][]uint64
	counts []uint32
	last   []uint32
	// unordered: some term got a document below one it had (documents
	// added out of order), so finish sorts each term's documents.
	unordered bool

	tokens int64 // terms of every document, for textLength
}

func newTermsBuilder() *termsBuilder { return &termsBuilder{ids: map[string]uint32{}} }

func (tb *termsBuilder) add(d uint32, texts ...string) {
	set, n := countedTermSet(texts)
	tb.tokens += int64(n)
	for _, t := range set {
		id, ok := tb.ids[t]
		if !ok {
			id = uint32(len(tb.names))
			tb.ids[t] = id
			tb.names = append(tb.names, t)
			tb.counts = append(tb.counts, 0)
			tb.last = append(tb.last, d)
		}
		if d < tb.last[id] {
			tb.unordered = true
		}
		tb.last[id] = d
		tb.counts[id]++
		if len(tb.pairs) == 0 || len(tb.pairs[len(tb.pairs)-1]) == termPairBlock {
			tb.pairs = append(tb.pairs, make([]uint64, 0, termPairBlock))
		}
		last := &tb.pairs[len(tb.pairs)-1]
		*last = append(*last, uint64(id)<<32|uint64(d))
	}
}

// finish makes the terms: each term's documents in increasing order, the
// terms in byte order. The pairs are placed by term with the counts (one
// pass, each block dropped once placed), then each term's documents sorted
// only when some arrived out of order.
func (tb *termsBuilder) finish() *terms {
	// starts[id] is where the documents of term id begin in docs.
	starts := make([]int, len(tb.names)+1)
	for id, n := range tb.counts {
		starts[id+1] = starts[id] + int(n)
	}
	docs := make([]uint32, starts[len(tb.names)])
	next := slices.Clone(starts[:len(tb.names)])
	for i, block := range tb.pairs {
		for _, p := range block {
			id := p >> 32
			docs[next[id]] = uint32(p)
			next[id]++
		}
		tb.pairs[i] = nil
	}
	byName := make([]uint32, len(tb.names))
	for i := range byName {
		byName[i] = uint32(i)
	}
	slices.SortFunc(byName, func(a, b uint32) int { return strings.Compare(tb.names[a], tb.names[b]) })
	var bb termBlockBuilder
	for _, id := range byName {
		posting := docs[starts[id]:starts[id+1]]
		if tb.unordered {
			slices.Sort(posting)
		}
		// makePosting keeps a small posting's slice, which the block
		// builder copies, and copies a large one into a bitmap.
		bb.add(tb.names[id], makePosting(posting))
	}
	tb.ids, tb.names, tb.pairs, tb.counts, tb.last = nil, nil, nil, nil, nil
	return &terms{blocks: bb.blocks(), length: knownLength(tb.tokens)}
}
