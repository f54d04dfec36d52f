package vector

import "testing"

func TestIndex_Bytes(t *testing.T) {
	const dim, n = 16, 3000
	p := Params{M: 8, EfConstruction: 40, EfSearch: 40, Seed: 1}
	empty := New(dim, Euclidean, p)
	if b := empty.Bytes(); b > 1024 {
		t.Fatalf("an empty index holds %d bytes", b)
	}
	ix, _ := churn(t, empty, newClustered(3, dim, 8), n, 0)
	// At least every vector with its norm, and every node's level-0 link
	// slots: a figure below that has missed a structure.
	least := int64(n) * (dim + 1 + 2*8 + 1) * 4
	if b := ix.Bytes(); b < least {
		t.Fatalf("%d vectors hold %d bytes, fewer than their vectors and links (%d)", n, b, least)
	}
	grown, _ := churn(t, ix, newClustered(4, dim, 8), 2*n, 0)
	if grown.Bytes() <= ix.Bytes() {
		t.Fatalf("more vectors, no more bytes: %d then %d", ix.Bytes(), grown.Bytes())
	}
}
