package index

import (
	"context"
	"slices"
	"weak"

	"github.com/RoaringBitmap/roaring/v2"
)

// A link from a set of objects to the objects that hold their primary
// keys (Customer.orders: the orders whose customerId is one of the
// customers') is a join of two snapshots. Done value by value, it reads
// each source document's key (a cold line each) and finds each key's run
// in the target's order (another): at ten million objects a link from a
// hundred thousand customers spent 26 ms so, about 130 ns a customer
// twice. A linkJoin makes that join once, by merging the source's order
// of its key with the target's order of the property, and the target
// snapshot keeps it (and hands it on while those two orders stay as they
// are): a link then costs the source documents it starts from (their
// targets' count is a sum over them) and a lookup per target document
// tested.
//
// Making it reads both orders whole (about 22 ns an entry at ten
// million), so a join is made only once the links between two orders
// have read as many keys as it costs (joinCache.get); until then, and for
// small sets, the keys go value by value. A join takes 4 bytes a source
// document and 8 a target document: 120 MB for ten million of each.
type linkJoin struct {
	// source is, per target document, 1 + the source document whose key
	// the target's value is; 0 for none.
	source []uint32
	// start and targets list each source document's targets: those of s
	// are targets[start[s]:start[s+1]], ascending.
	start   []uint32
	targets []uint32
}

// Costs of the join, per entry of the orders merged and per key a link
// reads without it (the key's column line and its run's search; measured
// at ten million objects).
const (
	costJoinEntry = 22
	costJoinKey   = 250
)

// newLinkJoin merges the source's order of its primary key (sp) with the
// target's order of tp, both of values that are their pres alone. Orders
// hold the alive documents only.
func newLinkJoin(ctx context.Context, src *Snapshot, sp *propertyIndex, tgt *Snapshot, tp *propertyIndex) (*linkJoin, error) {
	j := &linkJoin{source: make([]uint32, tgt.maxDoc), start: make([]uint32, int(src.maxDoc)+1)}
	so := sp.order
	sb, sj := 0, 0
	matched := 0
merge:
	for ti, tb := range tp.order.blocks {
		if ti&255 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		for k, pre := range tb.pre {
			for sb < len(so.blocks) && so.lastPre[sb] < pre {
				sb, sj = sb+1, 0
			}
			if sb == len(so.blocks) {
				break merge // no source key is this large
			}
			b := so.blocks[sb]
			for b.pre[sj] < pre { // ends within the block: its last pre is >= pre
				sj++
			}
			if b.pre[sj] == pre {
				d := b.doc[sj]
				j.source[tb.doc[k]] = d + 1
				j.start[d+1]++
				matched++
			}
		}
	}
	for s := 1; s < len(j.start); s++ {
		j.start[s] += j.start[s-1]
	}
	// Each source's targets in document order: start[s] is s's cursor,
	// which ends where s+1 starts; shifted back after.
	j.targets = make([]uint32, matched)
	for t, s := range j.source {
		if s != 0 {
			j.targets[j.start[s-1]] = uint32(t)
			j.start[s-1]++
		}
	}
	copy(j.start[1:], j.start[:len(j.start)-1])
	j.start[0] = 0
	return j, nil
}

// of is the targets of source document s.
func (j *linkJoin) of(s uint32) []uint32 { return j.targets[j.start[s]:j.start[s+1]] }

// joinNode is the target documents of a link from some source documents,
// through the join of their snapshots.
type joinNode struct {
	j     *linkJoin
	from  *roaring.Bitmap // the source documents; read only
	count int64           // the matches, exactly
}

func newJoinNode(j *linkJoin, from *roaring.Bitmap) *joinNode {
	n := &joinNode{j: j, from: from}
	// A loop that does nothing but add, so that the processor overlaps
	// the cold lines of start (one a source document).
	var count uint32
	eachDocs(from, func(docs []uint32) bool {
		for _, s := range docs {
			count += j.start[s+1] - j.start[s]
		}
		return true
	})
	n.count = int64(count)
	return n
}

func (n *joinNode) est() float64 { return float64(n.count) }

func (n *joinNode) test(d uint32) bool {
	if int(d) >= len(n.j.source) {
		return false // added since the join, without a value: carried joins
	}
	s := n.j.source[d]
	return s != 0 && n.from.Contains(s-1)
}

func (n *joinNode) tcost() float64 { return costColumn + costContains }
func (n *joinNode) mcost() float64 { return float64(n.count) * costSort }

// bitmap sorts the targets of a few sources; the targets of many go
// through a dense bitset.
func (n *joinNode) bitmap(x *exec) (*roaring.Bitmap, error) {
	if x.sparse || float64(n.count)*costSort < float64(x.s.maxDoc)/64*costWord {
		docs := make([]uint32, 0, n.count)
		eachDocs(n.from, func(sources []uint32) bool {
			for _, s := range sources {
				docs = append(docs, n.j.of(s)...)
			}
			return true
		})
		slices.Sort(docs)
		return roaring.BitmapOf(docs...), nil
	}
	return roaring.FromDense(n.dense(x), false), nil
}

// dense sets the bits of the targets.
func (n *joinNode) dense(x *exec) dense {
	w := x.dense()
	eachDocs(n.from, func(sources []uint32) bool {
		for _, s := range sources {
			for _, t := range n.j.of(s) {
				w[t>>6] |= 1 << (t & 63)
			}
		}
		return true
	})
	return w
}

// joinUse is whether a compiler follows links through joins.
type joinUse int

const (
	joinsAuto   joinUse = iota // once they are worth making (joinCache.get)
	joinsNever                 // value by value (tests compare both ways)
	joinsAlways                // made on the first link
)

// join is the target documents of a link from keys, through the join of
// their snapshots when the target snapshot has it or it is worth making
// now; nil otherwise.
func (c *compiler) join(pi *propertyIndex, k *keyDocs) (node, error) {
	if c.joins == joinsNever || c.ctx == nil || k.pi.order == nil {
		return nil, nil
	}
	if n := k.pi.order.len(); n == 0 || int(k.docs.Maximum()) >= int(k.s.maxDoc) {
		return nil, nil
	}
	key := joinKey{source: weak.Make(k.pi.order), sourceType: k.s.typ.APIName, sourceProperty: k.pi.position, targetProperty: pi.position}
	cost := float64(int64(k.s.maxDoc)+int64(c.s.maxDoc)) * costJoinEntry
	if c.joins == joinsAlways {
		cost = 0
	}
	j, err := c.s.joins.get(c.ctx, key, int64(k.count), cost, pi.order, func(ctx context.Context) (*linkJoin, error) {
		return newLinkJoin(ctx, k.s, k.pi, c.s, pi)
	})
	if j == nil || err != nil {
		return nil, err
	}
	return newJoinNode(j, k.docs), nil
}
