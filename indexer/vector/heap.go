package vector

// candidate is a node at a distance from the query.
type candidate struct {
	dist float32
	node uint32
}

// nearHeap pops the nearest candidate first; farHeap the farthest. Both
// are plain binary heaps over a slice, reused across searches: the
// standard container/heap would box every push.
type nearHeap []candidate

func (h *nearHeap) push(c candidate) {
	*h = append(*h, c)
	a := *h
	i := len(a) - 1
	for i > 0 {
		p := (i - 1) / 2
		if a[p].dist <= a[i].dist {
			break
		}
		a[p], a[i] = a[i], a[p]
		i = p
	}
}

func (h *nearHeap) pop() candidate {
	a := *h
	top := a[0]
	last := len(a) - 1
	a[0] = a[last]
	a = a[:last]
	siftDown(a, false)
	*h = a
	return top
}

type farHeap []candidate

func (h *farHeap) push(c candidate) {
	*h = append(*h, c)
	a := *h
	i := len(a) - 1
	for i > 0 {
		p := (i - 1) / 2
		if a[p].dist >= a[i].dist {
			break
		}
		a[p], a[i] = a[i], a[p]
		i = p
	}
}

func (h *farHeap) pop() candidate {
	a := *h
	top := a[0]
	last := len(a) - 1
	a[0] = a[last]
	a = a[:last]
	siftDown(a, true)
	*h = a
	return top
}

// top is the farthest candidate; the heap must not be empty.
func (h farHeap) top() candidate { return h[0] }

// siftDown restores a heap whose root may be out of place: the farthest
// on top when far, else the nearest.
func siftDown(a []candidate, far bool) {
	i := 0
	for {
		l := 2*i + 1
		if l >= len(a) {
			return
		}
		c := l
		if r := l + 1; r < len(a) && (a[r].dist < a[l].dist) != far && a[r].dist != a[l].dist {
			c = r
		}
		if a[c].dist == a[i].dist || (a[c].dist < a[i].dist) == far {
			return
		}
		a[i], a[c] = a[c], a[i]
		i = c
	}
}
