package typescript

import (
	"slices"
	"testing"
)

func TestQuote(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain", `'plain'`},
		{"it's", `'it\'s'`},
		{`a\b`, `'a\\b'`},
		{"two\nlines\r\tend", `'two\nlines\r\tend'`},
		{"\x00\x1f\x7f\u2028\u2029", `'\u0000\u001f\u007f\u2028\u2029'`},
		{"Zürich ✈", `'Zürich ✈'`},
	} {
		if got := quote(c.in); got != c.want {
			t.Errorf("quote(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestCompareNames(t *testing.T) {
	// JavaScript's ["b", "B", "a", "A", "_x", "x1", "x_", "x", "a2", "a10"]
	// .sort((a, b) => a.localeCompare(b)).
	in := []string{"b", "B", "a", "A", "_x", "x1", "x_", "x", "a2", "a10"}
	want := []string{"_x", "a", "A", "a10", "a2", "b", "B", "x", "x_", "x1"}
	if got := sortedNames(in); !slices.Equal(got, want) {
		t.Errorf("sortedNames(%v) = %v, want %v", in, got, want)
	}
}

func TestClientType(t *testing.T) {
	for _, c := range []struct {
		wire, want string
		array      bool
		err        bool
	}{
		{wire: "string", want: "string"},
		{wire: "date", want: "datetime"},
		{wire: "timestamp", want: "timestamp"},
		{wire: "decimal", want: "decimal"},
		{wire: "long", want: "long"},
		{wire: "array<date>", want: "datetime", array: true},
		{wire: "array<integer>", want: "integer", array: true},
		{wire: "array<array<integer>>", err: true},
		{wire: "array<integer", err: true},
		{wire: "geopoint", want: "geopoint"},
		{wire: "geoshape", want: "geoshape"},
		{wire: "attachment", err: true},
	} {
		got, err := clientType(c.wire)
		if (err != nil) != c.err || (!c.err && (got.Wire != c.want || got.Array != c.array || !got.Nullable)) {
			t.Errorf("clientType(%q) = %+v, %v", c.wire, got, err)
		}
	}
}
