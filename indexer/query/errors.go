package query

import (
	"errors"
	"fmt"
)

// ErrBadCursor reports an After cursor that the engine did not make for
// this search.
var ErrBadCursor = errors.New("cursor does not belong to this search")

// TooExpensiveError reports a text query whose prefix or fuzzy term would
// expand to more terms than Limits.MaxTerms allows. The engine refuses it
// after listing at most MaxTerms terms, before it reads any posting.
type TooExpensiveError struct {
	Property string
	Op       Op
	Limit    int
	Reason   string
}

func (e *TooExpensiveError) Error() string {
	return fmt.Sprintf("%s on %s: %s", e.Op, e.Property, e.Reason)
}

// TooManyGroupsError reports an aggregation with more groups than
// Limits.MaxGroups.
type TooManyGroupsError struct {
	Groups, Limit int
}

func (e *TooManyGroupsError) Error() string {
	return fmt.Sprintf("the aggregation has more than %d groups", e.Limit)
}
