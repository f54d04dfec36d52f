package objects

// closest returns the name of candidates nearest to name by edit distance
// (insertions, deletions, substitutions and swaps of adjacent letters),
// when it is near enough to be a likely typo: at most two edits, and fewer
// than the letters of name. It returns "" otherwise, so that an error
// suggests only a name worth trying.
func closest(name string, candidates []string) string {
	best, bestDistance := "", 3
	for _, c := range candidates {
		if d := editDistance(name, c); d < bestDistance && d < len([]rune(name)) {
			best, bestDistance = c, d
		}
	}
	return best
}

// editDistance is the optimal string alignment distance of a and b: a
// swap of two adjacent letters (nmae, name) counts one edit, not two.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// Three rows of the distance matrix: two back for swaps.
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
