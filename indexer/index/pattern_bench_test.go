package index

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// Accounts of the pattern benchmark: a keyword email of *benchRows
// distinct values, half of them at example.com, which no dict can hold.
func accountType() *objects.Type {
	return &objects.Type{APIName: "Account", PrimaryKey: []string{"id"}, TitleProperty: "email", Properties: []objects.Property{
		{APIName: "id", Type: objects.DataType{Kind: objects.KindLong}, Search: objects.SearchNumeric},
		{APIName: "email", Type: objects.DataType{Kind: objects.KindString}, Search: objects.SearchKeyword},
	}}
}

var benchDomains = []string{"example.com", "mail.org", "example.com", "corp.net"}

var accountSnap = sync.OnceValue(func() *Snapshot {
	typ := accountType()
	b := NewBuilder(typ)
	o := &objects.Object{Values: make([]any, 2)}
	for i := range *benchRows {
		o.Values[0] = int64(i)
		o.Values[1] = fmt.Sprintf("user%07d@%s", i, benchDomains[i%len(benchDomains)])
		k, _ := typ.Key(o)
		if err := b.Add(uint32(i), k, o); err != nil {
			panic(err)
		}
	}
	return b.Finish(1)
})

// BenchmarkSnapshot_Pattern measures wildcards on a keyword of many
// distinct values under the default server.maxQueryTerms: a suffix, an
// infix, and a prefix (which walks only the values that have it).
func BenchmarkSnapshot_Pattern(b *testing.B) {
	s := accountSnap()
	for _, bc := range []struct{ name, pattern string }{
		{"suffix", "*@example.com"},
		{"infix", "*0042*"},
		{"prefix", "user00042*"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			q := &query.Search{PageSize: 100, Filter: query.Text(query.OpWildcard, "email", bc.pattern), Limits: query.Limits{MaxTerms: 100_000}}
			var res *Result
			var err error
			for b.Loop() {
				res, err = s.Search(b.Context(), q)
				var te *query.TooExpensiveError
				if err != nil && !errors.As(err, &te) {
					b.Fatal(err)
				}
			}
			if err != nil {
				b.Logf("refused: %v", err)
				return
			}
			b.Logf("%d matches, plan %s", res.Total, res.Plan)
		})
	}
}
