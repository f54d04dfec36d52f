package query

// Sort is one sort field: a sortable property (searchable, not an array),
// ascending unless Desc. Nulls come last in both directions.
type Sort struct {
	Property string
	Desc     bool
}

// Limits bound what one query may cost.
type Limits struct {
	// MaxTerms bounds the index terms a prefix or fuzzy term of a text
	// query may expand to; beyond it the query fails with a
	// *TooExpensiveError. A wildcard or regular expression that matches
	// more distinct values than MaxTerms is not refused: the engine scans
	// the values instead of expanding to them. Zero means no bound.
	MaxTerms int
	// MaxGroups bounds the groups of an aggregation; beyond it the query
	// fails with a *TooManyGroupsError. Zero means no bound.
	MaxGroups int
}

// Search asks for one page of the objects Filter matches, in Sort order
// (primary-key order when Sort is empty), or by relevance.
type Search struct {
	Filter   *Filter
	Sort     []Sort
	PageSize int
	// After is the Next cursor of the previous page of the same search;
	// the page starts strictly after it. Cursors hold sort values, not
	// offsets, so they stay valid across builds.
	After  []byte
	Limits Limits
	// NoTotal skips counting the matches (the result's Total is 0): for a
	// page that continues one whose total is known, the next rows of one
	// type in a merge of several types' pages.
	NoTotal bool
	// Enough, when set below PageSize, is as many objects as the caller
	// likely needs: a plan whose cost grows with the objects it takes (a
	// walk of the sort order) stops there, with a Next cursor, while one
	// that pays for every match anyway (a collect) fills the page. A merge
	// of several types' pages asks each type for its likely part.
	Enough int

	// Relevance orders by BM25 score over the text terms of Filter,
	// highest first, then by primary key; Sort must be empty.
	Relevance bool
}
