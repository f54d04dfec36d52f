package index

import (
	"slices"
	"sort"
	"strings"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/blevesearch/vellum"
)

// terms is the inverted index of one text property: its terms in byte
// order, each with the documents that hold it. Like orders, it is a list
// of blocks that updates copy only where they change. Term lookups and
// prefixes are binary searches; fuzzy terms, wildcards and regular
// expressions walk the sorted terms with a vellum automaton, skipping every
// term under a prefix the automaton cannot match.
type terms struct {
	blocks []*termBlock
	length *textLength // nil only in tests that build terms by hand
}

// termBlock is a block of terms, packed: the terms, the small postings
// concatenated (those of term j are
// docs[postingOffsets[j]:postingOffsets[j+1]]), and the bitmaps of the
// large ones.
type termBlock struct {
	terms          *packedStrings
	postingOffsets []uint32
	docs           []uint32
	large          map[int32]*roaring.Bitmap
}

func (b *termBlock) len() int { return b.terms.len() }

// post returns the posting of term j; it shares the block's memory.
func (b *termBlock) post(j int) posting {
	if bm := b.large[int32(j)]; bm != nil {
		return posting{bm: bm}
	}
	return posting{docs: b.docs[b.postingOffsets[j]:b.postingOffsets[j+1]:b.postingOffsets[j+1]]}
}

// termBlockBuilder packs terms, added in order, into blocks.
type termBlockBuilder struct {
	out            []*termBlock
	terms          []string
	postingOffsets []uint32
	docs           []uint32
	large          map[int32]*roaring.Bitmap
}

func (bb *termBlockBuilder) add(term string, p posting) {
	if len(bb.terms) == blockTarget {
		bb.flush()
	}
	if bb.postingOffsets == nil {
		bb.postingOffsets = []uint32{0}
	}
	if p.bm != nil {
		if bb.large == nil {
			bb.large = map[int32]*roaring.Bitmap{}
		}
		bb.large[int32(len(bb.terms))] = p.bm
	} else {
		bb.docs = append(bb.docs, p.docs...)
	}
	bb.terms = append(bb.terms, term)
	bb.postingOffsets = append(bb.postingOffsets, uint32(len(bb.docs)))
}

func (bb *termBlockBuilder) flush() {
	if len(bb.terms) > 0 {
		bb.out = append(bb.out, &termBlock{terms: packStrings(bb.terms), postingOffsets: bb.postingOffsets, docs: slices.Clip(bb.docs), large: bb.large})
	}
	bb.terms, bb.postingOffsets, bb.docs, bb.large = nil, nil, nil, nil
}

func (bb *termBlockBuilder) blocks() []*termBlock {
	bb.flush()
	return bb.out
}

// A posting is the documents of one term: a sorted slice while small (most
// terms of a large vocabulary hold a few documents), a bitmap beyond.
type posting struct {
	docs []uint32
	bm   *roaring.Bitmap
}

const smallPosting = 32

func makePosting(docs []uint32) posting {
	if len(docs) <= smallPosting {
		return posting{docs: slices.Clip(docs)}
	}
	bm := roaring.BitmapOf(docs...)
	bm.RunOptimize()
	return posting{bm: bm}
}

func (p posting) card() int {
	if p.bm != nil {
		return int(p.bm.GetCardinality())
	}
	return len(p.docs)
}

// bitmap returns the documents as a bitmap (shared when it is one).
func (p posting) bitmap() *roaring.Bitmap {
	if p.bm != nil {
		return p.bm
	}
	return roaring.BitmapOf(p.docs...)
}

func (p posting) appendTo(docs []uint32) []uint32 {
	if p.bm != nil {
		return append(docs, p.bm.ToArray()...)
	}
	return append(docs, p.docs...)
}

// with returns the posting after removing and adding documents.
func (p posting) with(remove, add []uint32) posting {
	if p.bm == nil && len(p.docs)+len(add) <= smallPosting {
		docs := slices.DeleteFunc(slices.Clone(p.docs), func(d uint32) bool { return slices.Contains(remove, d) })
		docs = append(docs, add...)
		slices.Sort(docs)
		return posting{docs: slices.Compact(docs)}
	}
	bm := p.bitmap().Clone()
	for _, d := range remove {
		bm.Remove(d)
	}
	bm.AddMany(add)
	if n := bm.GetCardinality(); n <= smallPosting/2 {
		return posting{docs: bm.ToArray()}
	}
	return posting{bm: bm}
}

func (t *terms) len() int {
	n := 0
	for _, b := range t.blocks {
		n += b.len()
	}
	return n
}

// seek returns the block and offset of the first term >= s.
func (t *terms) seek(s string) (int, int) {
	bi := sort.Search(len(t.blocks), func(i int) bool {
		b := t.blocks[i]
		return b.terms.get(b.len()-1) >= s
	})
	if bi == len(t.blocks) {
		return bi, 0
	}
	b := t.blocks[bi]
	return bi, sort.Search(b.len(), func(j int) bool { return b.terms.get(j) >= s })
}

// get returns the posting of a term.
func (t *terms) get(s string) (posting, bool) {
	bi, j := t.seek(s)
	if bi < len(t.blocks) && t.blocks[bi].terms.get(j) == s {
		return t.blocks[bi].post(j), true
	}
	return posting{}, false
}

// each calls fn for the terms >= from in order until fn returns false.
func (t *terms) each(from string, fn func(term string, p posting) bool) {
	bi, j := t.seek(from)
	for ; bi < len(t.blocks); bi, j = bi+1, 0 {
		b := t.blocks[bi]
		for ; j < b.len(); j++ {
			if !fn(b.terms.get(j), b.post(j)) {
				return
			}
		}
	}
}

// prefix calls fn for the terms with the prefix, in order, until fn
// returns false.
func (t *terms) prefix(pfx string, fn func(term string, p posting) bool) {
	t.each(pfx, func(term string, p posting) bool {
		return strings.HasPrefix(term, pfx) && fn(term, p)
	})
}

// successor is the smallest string greater than every string with the
// prefix s, or "" when there is none (s is all 0xff).
func successor(s string) string {
	b := []byte(s)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < 0xff {
			b[i]++
			return string(b[:i+1])
		}
	}
	return ""
}

// walkSorted runs automaton a over sorted strings, reusing the states of
// the prefix a string shares with the previous one and skipping the
// strings under a prefix that cannot match. next(from) returns the first
// string >= from ("", false at the end); fn gets each match and returns
// false to stop.
func walkSorted(a vellum.Automaton, next func(from string) (string, bool), fn func(s string) bool) {
	states := []int{a.Start()} // states[i]: after the first i bytes of prev
	prev := ""
	from := ""
	for {
		s, ok := next(from)
		if !ok {
			return
		}
		// Resume from the longest prefix shared with prev.
		n := 0
		for n < len(s) && n < len(prev) && n+1 < len(states) && s[n] == prev[n] {
			n++
		}
		states = states[:n+1]
		dead := -1
		for i := n; i < len(s); i++ {
			st := a.Accept(states[i], s[i])
			states = append(states, st)
			if !a.CanMatch(st) {
				dead = i
				break
			}
		}
		prev = s
		if dead >= 0 {
			from = successor(s[:dead+1])
			if from == "" {
				return
			}
			continue
		}
		if a.IsMatch(states[len(s)]) && !fn(s) {
			return
		}
		from = s + "\x00"
	}
}

// walk calls fn for the terms automaton a matches.
func (t *terms) walk(a vellum.Automaton, fn func(term string, p posting) bool) {
	walkSorted(a, func(from string) (string, bool) {
		bi, j := t.seek(from)
		if bi == len(t.blocks) {
			return "", false
		}
		return t.blocks[bi].terms.get(j), true
	}, func(s string) bool {
		p, _ := t.get(s)
		return fn(s, p)
	})
}

// termEdit is what an update does to one term.
type termEdit struct {
	remove, add []uint32
}

// with returns a copy of t after the edits, sharing untouched blocks.
// Terms left without documents are dropped.
func (t *terms) with(edits map[string]*termEdit) *terms {
	names := make([]string, 0, len(edits))
	for k := range edits {
		names = append(names, k)
	}
	slices.Sort(names)
	byBlock := map[int][]string{}
	for _, s := range names {
		bi, _ := t.seek(s)
		if bi == len(t.blocks) && bi > 0 {
			bi-- // beyond the last term: append to the last block
		}
		byBlock[bi] = append(byBlock[bi], s)
	}
	out := &terms{}
	for bi := 0; bi < max(len(t.blocks), 1); bi++ {
		names := byBlock[bi]
		if names == nil {
			if bi < len(t.blocks) {
				out.blocks = append(out.blocks, t.blocks[bi])
			}
			continue
		}
		var bb termBlockBuilder
		apply := func(s string, p posting) {
			e := edits[s]
			if p = p.with(e.remove, e.add); p.card() > 0 {
				bb.add(strings.Clone(s), p)
			}
		}
		i := 0
		if bi < len(t.blocks) {
			old := t.blocks[bi]
			for j := range old.len() {
				s := old.terms.get(j)
				for i < len(names) && names[i] < s {
					apply(names[i], posting{})
					i++
				}
				if i < len(names) && names[i] == s {
					apply(s, old.post(j))
					i++
					continue
				}
				bb.add(s, old.post(j))
			}
		}
		for ; i < len(names); i++ {
			apply(names[i], posting{})
		}
		out.blocks = append(out.blocks, bb.blocks()...)
	}
	return out
}
