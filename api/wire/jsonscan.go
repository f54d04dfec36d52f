package wire

import (
	"encoding/json"
)

// Where clauses and object sets are read from their raw JSON one level at
// a time. readBody has decoded the request with encoding/json first, so
// the raw JSON of a level is known to be well formed; these functions
// split it into its fields or elements in one pass, without the map, the
// reflection and the re-scan of every nested level that unmarshalling
// each level costs (at four clauses, most of a sorted search's decoding).
// They still refuse what is not well formed rather than guess: ok false.

// Field is a key and the raw JSON of its value.
type Field struct {
	Key string
	Val json.RawMessage
}

// Fields are the fields of an object in the order they came.
type Fields []Field

// Get is the value of key, the last one when the key repeats (as
// encoding/json's maps keep it), nil when absent.
func (fs Fields) Get(key string) json.RawMessage {
	for i := len(fs) - 1; i >= 0; i-- {
		if fs[i].Key == key {
			return fs[i].Val
		}
	}
	return nil
}

// JSONObject splits a JSON object into its fields.
func JSONObject(raw []byte) (Fields, bool) {
	i, empty, ok := openBracket(raw, '{', '}')
	if !ok || empty {
		return nil, ok
	}
	var fs Fields
	for {
		end, ok := skipString(raw, i)
		if !ok {
			return nil, false
		}
		key, ok := JSONString(raw[i:end])
		if !ok {
			return nil, false
		}
		i = skipSpace(raw, end)
		if i >= len(raw) || raw[i] != ':' {
			return nil, false
		}
		start := skipSpace(raw, i+1)
		if end, ok = skipValue(raw, start); !ok {
			return nil, false
		}
		fs = append(fs, Field{Key: key, Val: raw[start:end]})
		var done bool
		i, done, ok = nextMember(raw, end, '}')
		if !ok {
			return nil, false
		}
		if done {
			return fs, true
		}
	}
}

// JSONArray splits a JSON array into its elements; null is not an array.
func JSONArray(raw []byte) ([]json.RawMessage, bool) {
	i, empty, ok := openBracket(raw, '[', ']')
	if !ok {
		return nil, false
	}
	elems := []json.RawMessage{}
	if empty {
		return elems, true
	}
	for {
		end, ok := skipValue(raw, i)
		if !ok {
			return nil, false
		}
		elems = append(elems, raw[i:end])
		var done bool
		i, done, ok = nextMember(raw, end, ']')
		if !ok {
			return nil, false
		}
		if done {
			return elems, true
		}
	}
}

// openBracket reads the opening bracket of an object or array: i is where
// its first member starts; empty says it closes at once, and then ok says
// whether nothing follows.
func openBracket(raw []byte, open, close byte) (i int, empty, ok bool) {
	i = skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != open {
		return 0, false, false
	}
	i = skipSpace(raw, i+1)
	if i < len(raw) && raw[i] == close {
		return 0, true, skipSpace(raw, i+1) == len(raw)
	}
	return i, false, true
}

// nextMember reads what follows a member that ends at end: a comma, and i
// is where the next member starts; or the closing bracket (done), and ok
// says whether nothing follows it.
func nextMember(raw []byte, end int, close byte) (i int, done, ok bool) {
	i = skipSpace(raw, end)
	if i >= len(raw) {
		return 0, false, false
	}
	switch raw[i] {
	case ',':
		return skipSpace(raw, i+1), false, true
	case close:
		return 0, true, skipSpace(raw, i+1) == len(raw)
	}
	return 0, false, false
}

// JSONString is the value of a JSON string; one without escapes is a
// slice of raw, others are unescaped by encoding/json.
func JSONString(raw []byte) (string, bool) {
	i := skipSpace(raw, 0)
	j := len(raw)
	for j > i && isSpace(raw[j-1]) {
		j--
	}
	if j-i < 2 || raw[i] != '"' || raw[j-1] != '"' {
		return "", false
	}
	body := raw[i+1 : j-1]
	for _, c := range body {
		if c == '\\' || c == '"' || c < 0x20 || c >= 0x80 {
			var s string
			err := json.Unmarshal(raw[i:j], &s)
			return s, err == nil
		}
	}
	return string(body), true
}

// skipValue returns the end of the JSON value that starts at i.
func skipValue(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return i, false
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				end, ok := skipString(b, i)
				if !ok {
					return i, false
				}
				i = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, true
				}
			}
		}
		return i, false
	}
	// A number, true, false or null: up to the next delimiter. (Its
	// spelling was checked by readBody; the parsers of values check what
	// they accept.)
	j := i
	for j < len(b) && !isSpace(b[j]) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ':' {
		j++
	}
	return j, j > i
}

// skipString returns the end of the JSON string that starts at i.
func skipString(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != '"' {
		return i, false
	}
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1, true
		}
	}
	return len(b), false
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// IsJSONNumber reports whether raw is spelled as a JSON number.
func IsJSONNumber(raw []byte) bool {
	i := 0
	if i < len(raw) && raw[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(raw) && raw[i] >= '0' && raw[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(raw) && raw[i] == '0' {
		i++
	} else if digits() == 0 {
		return false
	}
	if i < len(raw) && raw[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(raw) && (raw[i] == 'e' || raw[i] == 'E') {
		i++
		if i < len(raw) && (raw[i] == '+' || raw[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(raw)
}
