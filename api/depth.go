package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/ontoindex/ontoindex/api/wire"
)

// Bodies are checked for depth before they are decoded. encoding/json
// refuses JSON nested deeper than 10,000 levels with a syntax error, so a
// where clause nested 10,000 levels deep, valid JSON, would be reported
// as invalid JSON, while one 5,000 levels deep is reported as deeper than
// server.maxWhereDepth: the depth limit must be reported as one at any
// depth. A where clause or object set within the limit nests its JSON at
// most two levels per level (and, or and union: an object and its list)
// plus a few for the body, property identifiers and values (leafDepth);
// a body nested deeper cannot be one the limit admits, and is refused as
// too deep, like a body too large, before any decoding. The scan is one
// pass over at most server.maxBodyBytes bytes.

// jsonMaxDepth is the nesting encoding/json decodes (its scanner's
// maxNestingDepth).
const jsonMaxDepth = 10_000

// leafDepth bounds the JSON levels a body adds to the nesting of its where
// clauses and object sets: the body object, a query's object, a
// propertyIdentifier with its loadLevel wrappers, a list of values.
const leafDepth = 16

// bodyDepthLimit is the deepest JSON nesting a body may have when its
// where clauses and object sets nest to maxWhereDepth.
func bodyDepthLimit(maxWhereDepth int) int {
	return min(2*maxWhereDepth+leafDepth, jsonMaxDepth)
}

// checkDepth refuses a body nested deeper than bodyDepthLimit with
// WhereClauseTooComplex, which names server.maxWhereDepth. A syntax error
// that comes before the excess in the body is reported as the syntax
// error it is, as decoding would; the excess is the first fault
// otherwise, whatever follows it.
func checkDepth(raw []byte, maxWhereDepth int) error {
	limit := bodyDepthLimit(maxWhereDepth)
	at := excessAt(raw, limit)
	if at < 0 {
		return nil
	}
	// Tokens have no depth limit: read the body up to the excess for a
	// syntax error before it. This runs on refused bodies only.
	dec := json.NewDecoder(bytes.NewReader(raw[:at]))
	for {
		_, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return wire.Err(wire.NameMalformedRequestBody, map[string]any{"reason": jsonReason(err)})
		}
		if err != nil {
			break // the prefix ends mid-value: no syntax error before the excess
		}
	}
	reason := fmt.Sprintf("nested deeper than %d levels: the body nests its JSON more than %d levels deep", maxWhereDepth, limit)
	if limit == jsonMaxDepth {
		reason = fmt.Sprintf("the body nests its JSON more than %d levels deep, the most the server reads (where clauses and object sets may nest %d levels)", limit, maxWhereDepth)
	}
	return wire.Err(wire.NameWhereClauseTooComplex, map[string]any{"maxDepth": maxWhereDepth, "reason": reason})
}

// excessAt returns the offset of the first [ or { outside strings that
// opens level limit+1, or -1 when the body nests no deeper than limit.
// It does not check syntax (decoding does): a stray closer only lowers
// the count.
func excessAt(raw []byte, limit int) int {
	depth := 0
	inString := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if inString {
			switch c {
			case '\\':
				i++ // the escaped byte cannot end the string
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '[', '{':
			if depth++; depth > limit {
				return i
			}
		case ']', '}':
			depth--
		}
	}
	return -1
}
