package api

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
)

// Page tokens are opaque cursors, never offsets. A token holds the
// engine's cursor of the last object of its page (its sort values and
// primary key) and a fingerprint of the request that made it,
// so that a token given to another query is refused instead of silently
// paging something else. The next page starts strictly after that
// position, so while no build runs objects are neither skipped nor
// repeated, and a page costs the same however deep it is. (The bearer
// tokens clients authenticate with are auth.go's.)

// tokenVersion 2: engine cursors (version 1 held bleve sort values).
const tokenVersion = 2

// Token kinds.
const (
	tokSearch byte = 2 // values: [engine cursor]
	tokName   byte = 3 // values: [object type apiName]
)

type pageToken struct {
	kind   byte
	fp     [8]byte
	values []string
}

func (t pageToken) encode() string {
	b := []byte{tokenVersion, t.kind}
	b = append(b, t.fp[:]...)
	b = binary.AppendUvarint(b, uint64(len(t.values)))
	for _, v := range t.values {
		b = binary.AppendUvarint(b, uint64(len(v)))
		b = append(b, v...)
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

var errBadToken = errors.New("bad page token")

func decodePageToken(s string) (pageToken, error) {
	var t pageToken
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) < 10 || b[0] != tokenVersion {
		return t, errBadToken
	}
	t.kind = b[1]
	copy(t.fp[:], b[2:10])
	b = b[10:]
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)) {
		return t, errBadToken
	}
	b = b[k:]
	for range n {
		l, k := binary.Uvarint(b)
		if k <= 0 || l > uint64(len(b)-k) {
			return t, errBadToken
		}
		t.values = append(t.values, string(b[k:k+int(l)]))
		b = b[k+int(l):]
	}
	if len(b) != 0 {
		return t, errBadToken
	}
	return t, nil
}

// fingerprint identifies the request a token belongs to: the parts that
// decide the result order and set.
func fingerprint(parts ...string) [8]byte {
	h := sha256.New()
	for _, p := range parts {
		var l [8]byte
		binary.BigEndian.PutUint64(l[:], uint64(len(p)))
		h.Write(l[:])
		h.Write([]byte(p))
	}
	var fp [8]byte
	copy(fp[:], h.Sum(nil))
	return fp
}

func invalidToken(tok string) *Error {
	if len(tok) > 100 {
		tok = tok[:100] + "..."
	}
	return apiErr(nameInvalidPageToken, map[string]any{"pageToken": tok, "reason": "the token was not returned for this request (same object type, where, object set and orderBy)"})
}

// decodeToken decodes a token of the given kind and fingerprint.
func decodeToken(tok string, kind byte, fp [8]byte) (pageToken, error) {
	t, err := decodePageToken(tok)
	if err != nil || t.kind != kind || t.fp != fp {
		return t, invalidToken(tok)
	}
	return t, nil
}

func encodeNameToken(name string) string {
	return pageToken{kind: tokName, fp: fingerprint("objectTypes"), values: []string{name}}.encode()
}

func decodeNameToken(tok string) (string, error) {
	t, err := decodeToken(tok, tokName, fingerprint("objectTypes"))
	if err != nil || len(t.values) != 1 {
		return "", invalidToken(tok)
	}
	return t.values[0], nil
}
