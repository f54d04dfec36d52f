package index

import (
	"container/heap"
	"encoding/binary"
	"errors"
	"math"

	"github.com/ontoindex/ontoindex/indexer/query"
)

// A relevance search scores every match and keeps the best page in a
// heap: the cost follows the matches. Its cursor is the (score, key) of
// the last row, so a page resumes exactly after it on the same snapshot.

// relevanceCursor marks a relevance cursor (field cursors start with
// cursorVersion).
const relevanceCursor = 0x72

// scored is a match with its score and key.
type scored struct {
	doc   uint32
	score float64
	key   string
}

// before reports whether a comes before b: higher score, then lower key.
func (a scored) before(b scored) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return a.key < b.key
}

func (a scored) cursor() []byte {
	b := []byte{relevanceCursor}
	b = binary.BigEndian.AppendUint64(b, math.Float64bits(a.score))
	return append(b, a.key...)
}

func decodeRelevanceCursor(b []byte) (scored, error) {
	if len(b) < 10 || b[0] != relevanceCursor {
		return scored{}, query.ErrBadCursor
	}
	score := math.Float64frombits(binary.BigEndian.Uint64(b[1:9]))
	if math.IsNaN(score) {
		return scored{}, query.ErrBadCursor
	}
	return scored{score: score, key: string(b[9:])}, nil
}

// worstFirst is a heap of the page so far, its last row on top.
type worstFirst []scored

func (h worstFirst) Len() int           { return len(h) }
func (h worstFirst) Less(i, j int) bool { return h[j].before(h[i]) }
func (h worstFirst) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *worstFirst) Push(x any)        { *h = append(*h, x.(scored)) }
func (h *worstFirst) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// searchRelevance returns one page of the matches of root by score.
func (s *Snapshot) searchRelevance(x *exec, c *compiler, q *query.Search, root node) (*Result, error) {
	if len(q.Sort) > 0 {
		return nil, errors.New("a relevance search takes no sort fields")
	}
	var after *scored
	if q.After != nil {
		a, err := decodeRelevanceCursor(q.After)
		if err != nil {
			return nil, err
		}
		after = &a
	}
	sc, err := c.newScorer(q.Filter)
	if err != nil {
		return nil, err
	}
	nearest := nearestScores(q.Filter)
	bm, err := root.bitmap(x)
	if err != nil {
		return nil, err
	}
	k := q.PageSize + 1
	h := make(worstFirst, 0, min(k, int(bm.GetCardinality())))
	var buf []valueKey
	it := bm.Iterator()
	for i := 0; it.HasNext(); i++ {
		if i%4096 == 0 {
			if err := x.ctx.Err(); err != nil {
				return nil, err
			}
		}
		e := scored{doc: it.Next()}
		if nearest != nil {
			e.score = nearest[s.keys.get(e.doc)]
		} else {
			e.score = sc.score(e.doc, &buf)
		}
		if after != nil && e.score > after.score {
			continue
		}
		if len(h) == k && h[0].score > e.score {
			continue // below the page: no need for its key
		}
		e.key = s.keys.get(e.doc)
		if after != nil && !after.before(e) {
			continue
		}
		switch {
		case len(h) < k:
			heap.Push(&h, e)
		case e.before(h[0]):
			h[0] = e
			heap.Fix(&h, 0)
		}
	}
	page := make([]scored, len(h))
	for i := len(h) - 1; i >= 0; i-- {
		page[i] = heap.Pop(&h).(scored)
	}
	res := &Result{Total: int64(bm.GetCardinality()), Plan: PlanCollect}
	if len(page) == k {
		page = page[:q.PageSize]
		res.Next = page[len(page)-1].cursor()
	}
	for _, e := range page {
		res.Docs = append(res.Docs, e.doc)
		res.Scores = append(res.Scores, e.score)
	}
	return res, nil
}
