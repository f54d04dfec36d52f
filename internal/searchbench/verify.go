package searchbench

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// verifyRounds is how many parameter sets each query is checked with.
const verifyRounds = 3

// verify asks both systems every query a few times and compares the
// answers: the same ids in the same order, or the same counts. Without
// PostgreSQL it checks that ontoindex answers without error.
func verify(ctx context.Context, qs []query, onto *ontoClient, pg *pgSide, seed uint64) error {
	var bad []string
	for i, q := range qs {
		r := rand.New(rand.NewPCG(seed, 1<<40|uint64(i)))
		for range verifyRounds {
			p := q.gen(r)
			var a, b result
			var err error
			if q.onto != nil {
				if a, err = q.onto(ctx, onto, p); err != nil {
					return fmt.Errorf("%s on ontoindex (%+v): %w", q.name, p, err)
				}
			}
			if q.pg == nil || pg == nil {
				continue
			}
			if b, err = q.pg(ctx, pg, p); err != nil {
				return fmt.Errorf("%s on postgres (%+v): %w", q.name, p, err)
			}
			if q.pgTotal != nil {
				if b.total, err = q.pgTotal(ctx, pg, p); err != nil {
					return fmt.Errorf("%s on postgres, count (%+v): %w", q.name, p, err)
				}
				b.counted = true
			}
			if q.sameAs != "" {
				// A PostgreSQL-only row must agree with another way of
				// asking PostgreSQL, which agrees with ontoindex.
				if a, err = queryByID(qs, q.sameAs).pg(ctx, pg, p); err != nil {
					return fmt.Errorf("%s on postgres (%+v): %w", q.sameAs, p, err)
				}
			}
			if q.agree != nil && len(a.ids) == len(b.ids) {
				n, err := q.agree(ctx, pg, p)
				if err != nil {
					return fmt.Errorf("%s on postgres, rows to agree on (%+v): %w", q.name, p, err)
				}
				n = min(n, len(a.ids))
				a.ids, b.ids = a.ids[:n], b.ids[:n]
			}
			if d := diff(a, b); d != "" {
				bad = append(bad, fmt.Sprintf("%s (%+v): %s", q.name, p, d))
			}
		}
	}
	if len(bad) > 0 {
		return &MismatchError{Mismatches: bad}
	}
	return nil
}

func queryByID(qs []query, id string) query {
	for _, q := range qs {
		if q.id == id {
			return q
		}
	}
	panic("searchbench: no query " + id)
}

// diff describes how a (ontoindex) and b (PostgreSQL) differ; "" when
// they agree. A total counted on one side only differs too: a row that
// checks totals must have them on both.
func diff(a, b result) string {
	return diffNamed(a, b, "ontoindex", "PostgreSQL", "PostgreSQL COUNT(*)")
}

// diffNamed is diff with the names of the two sides, and of b's total.
func diffNamed(a, b result, nameA, nameB, totalB string) string {
	var out []string
	if a.counted || b.counted {
		if a.counted != b.counted || a.total != b.total {
			out = append(out, fmt.Sprintf("totalCount differs: %s %s, %s %s", nameA, total(a), totalB, total(b)))
		}
	}
	switch {
	case a.counts != nil || b.counts != nil:
		if !maps.Equal(a.counts, b.counts) {
			out = append(out, fmt.Sprintf("counts differ: %s %v, %s %v", nameA, a.counts, nameB, b.counts))
		}
	case !slices.Equal(a.ids, b.ids):
		i := 0
		for i < len(a.ids) && i < len(b.ids) && a.ids[i] == b.ids[i] {
			i++
		}
		out = append(out, fmt.Sprintf("ids differ from position %d: %s %d ids %v, %s %d ids %v",
			i, nameA, len(a.ids), head(a.ids[i:]), nameB, len(b.ids), head(b.ids[i:])))
	}
	return strings.Join(out, "; ")
}

func total(r result) string {
	if !r.counted {
		return "none"
	}
	return strconv.FormatInt(r.total, 10)
}

func head(ids []int64) []int64 { return ids[:min(len(ids), 5)] }
