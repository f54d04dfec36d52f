package spelling

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// Distance is the edit distance between a and b in runes: insertions,
// deletions, substitutions and transpositions of neighbours each count
// one (optimal string alignment), so "citty"→"city" is 1 and
// "titleProprety"→"titleProperty" is 1.
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// Three rows: two back for transpositions, one back, and this one.
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// Closest returns up to n of candidates, nearest to name first (ties keep
// the candidates' order). Case is ignored in the comparison.
func Closest(name string, candidates []string, n int) []string {
	type scored struct {
		name     string
		distance int
	}
	folded := strings.ToLower(name)
	all := make([]scored, 0, len(candidates))
	for _, c := range candidates {
		all = append(all, scored{c, Distance(folded, strings.ToLower(c))})
	}
	slices.SortStableFunc(all, func(x, y scored) int { return x.distance - y.distance })
	out := make([]string, 0, min(n, len(all)))
	for _, s := range all[:min(n, len(all))] {
		out = append(out, s.name)
	}
	return out
}

// Meant returns the candidate that name is most likely a misspelling of:
// the nearest, if it is at most a third of name's length away (at least
// one edit, at most three), or "" when none is that near.
func Meant(name string, candidates []string) string {
	closest := Closest(name, candidates, 1)
	if len(closest) == 0 {
		return ""
	}
	limit := min(max(utf8.RuneCountInString(name)/3, 1), 3)
	if Distance(strings.ToLower(name), strings.ToLower(closest[0])) > limit {
		return ""
	}
	return closest[0]
}
