package opensearch

import (
	"fmt"
	"regexp"
	"strings"
)

// RejectedError is a document the cluster refused: a value its mapping
// cannot take. It names the object by its type and primary key and the
// property the cluster named.
type RejectedError struct {
	Cluster string
	Index   string
	Type    string // the object type's apiName
	Key     string // the primary key as users address it (objects.Type.KeyString)
	// Property is the property apiName the cluster's error names ("" when
	// it names none).
	Property string
	// Reason is the cluster's error: its type, then its reason and cause.
	Reason string
	// More is the number of other documents of the batch refused.
	More int
}

func (e *RejectedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "opensearch cluster %q refused object %s %q", e.Cluster, e.Type, e.Key)
	if e.Property != "" {
		fmt.Fprintf(&b, " at property %q", e.Property)
	}
	fmt.Fprintf(&b, " in index %s: %s", e.Index, e.Reason)
	if e.More > 0 {
		fmt.Fprintf(&b, " (and %d more objects of the batch)", e.More)
	}
	return b.String()
}

// UnavailableError is a bulk request whose writes to a shard the cluster
// could not take: the shard's primary was not active within the
// request's timeout (its node gone, and no in-sync replica to promote).
// Nothing is wrong with the documents: the next build sends them again.
type UnavailableError struct {
	Cluster string
	Index   string
	Items   int    // the writes of the request not taken
	Reason  string // the cluster's error of the first
}

func (e *UnavailableError) Error() string {
	return fmt.Sprintf("opensearch cluster %q could not take %d writes to %s, a shard being unavailable: %s", e.Cluster, e.Items, e.Index, e.Reason)
}

// UnreachableError is a cluster that did not answer.
type UnreachableError struct {
	Cluster string
	URLs    []string
	Err     error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("opensearch cluster %q (%s) is unreachable: %v", e.Cluster, strings.Join(e.URLs, ", "), e.Err)
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// Field names in OpenSearch's mapping errors: "failed to parse field
// [delay] of type [double] ...", "... dynamic introduction of
// [extra] within [_doc] is not allowed", "Document contains at least one
// immense term in field=\"tags\" ...".
var (
	parseFieldError  = regexp.MustCompile(`failed to parse field \[([^\]]+)\]`)
	strictFieldError = regexp.MustCompile(`dynamic introduction of \[([^\]]+)\] within \[([^\]]+)\]`)
	termFieldError   = regexp.MustCompile(`in field="([^"]+)"`)
)

// errorProperty is the property apiName an item error names, "" for none.
// A struct field's error names its path (addr.city, or addr.$present for
// the struct's presence), which is the apiName of the field's property
// (the struct's own for $present).
func errorProperty(reasons ...string) string {
	for _, r := range reasons {
		if m := parseFieldError.FindStringSubmatch(r); m != nil {
			return strings.TrimSuffix(m[1], "."+presentField)
		}
		if m := termFieldError.FindStringSubmatch(r); m != nil {
			return m[1] // a keyword: the exact sub-fields of text and decimal stay short
		}
		if m := strictFieldError.FindStringSubmatch(r); m != nil {
			if m[2] == "_doc" {
				return m[1]
			}
			return m[2] + "." + m[1]
		}
	}
	return ""
}
