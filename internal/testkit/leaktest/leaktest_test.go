package leaktest

import "testing"

type inner struct {
	secret []byte
	n      []int // numbers are not walked
}

type outer struct {
	Name  string
	in    *inner
	self  *outer
	byKey map[string]any
	arr   [12]byte
	iface any
}

func TestFind(t *testing.T) {
	const s = "s3cret-token"
	for _, tt := range []struct {
		name string
		v    func() any
		want string
	}{
		{"none", func() any { o := &outer{Name: "x"}; o.self = o; return o }, ""},
		{"exported string", func() any { return &outer{Name: "a" + s} }, ".Name"},
		{"unexported bytes behind a pointer", func() any { return outer{in: &inner{secret: []byte(s + "!"), n: make([]int, 1<<20)}} }, ".in.secret"},
		{"map value", func() any { return outer{byKey: map[string]any{"k": []string{"x", s}}} }, `.byKey["k"][1]`},
		{"map key", func() any { return map[string]int{s: 1} }, `[` + `"` + s + `"]`},
		{"byte array", func() any { o := outer{}; copy(o.arr[:], s); return &o }, ".arr"},
		{"interface in a cycle", func() any { o := &outer{}; o.self = o; o.iface = &inner{secret: []byte(s)}; return o }, ".iface.secret"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := Find(tt.v(), s); got != tt.want {
				t.Errorf("Find = %q, want %q", got, tt.want)
			}
		})
	}
}
