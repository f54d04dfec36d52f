// Package jsonid decodes the int64 ids that ops JSON writes as strings.
//
// Iceberg snapshot ids are random 63-bit numbers, nearly all above 2^53,
// and JSON clients that read numbers as doubles (JavaScript, jq) round
// them: 372056263949486138 reads as 372056263949486140. So the ops JSON
// (status, build results, checkpoints, write-mode reports) writes them as
// strings, with the ",string" option on int64 fields: the Go types stay
// int64. That option decodes strings only, while data dirs and servers of
// earlier releases wrote bare numbers; the types that are read back from
// those (a stored checkpoint, a status from an older server) decode their
// ids through Int64, which takes both.
package jsonid

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// Int64 is an int64 that decodes from a JSON string ("123") or a bare
// number (123); null leaves it as it is. It is for decoding only: see the
// package comment.
type Int64 int64

// UnmarshalJSON implements json.Unmarshaler.
func (n *Int64) UnmarshalJSON(b []byte) error {
	text := string(b)
	switch {
	case text == "null":
		return nil
	case len(b) > 0 && b[0] == '"':
		if err := json.Unmarshal(b, &text); err != nil {
			return fmt.Errorf("decode id: %w", err)
		}
	}
	v, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return fmt.Errorf("decode id %s: %w", b, err)
	}
	*n = Int64(v)
	return nil
}
