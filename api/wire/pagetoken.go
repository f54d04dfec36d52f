package wire

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
	TokSearch byte = 2 // values: [engine cursor]
	TokName   byte = 3 // values: [object type apiName]
	TokLinks  byte = 4 // values: [engine cursor of the sources, source key, link index, engine cursor of the targets]
)

// Token is a page token: its kind, the fingerprint of its request and
// what it carries (a kind's values, above).
type Token struct {
	Kind   byte
	FP     [8]byte
	Values []string
}

// Encode is the token as the client gets it.
func (t Token) Encode() string {
	b := []byte{tokenVersion, t.Kind}
	b = append(b, t.FP[:]...)
	b = binary.AppendUvarint(b, uint64(len(t.Values)))
	for _, v := range t.Values {
		b = binary.AppendUvarint(b, uint64(len(v)))
		b = append(b, v...)
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

var errBadToken = errors.New("bad page token")

func ParseToken(s string) (Token, error) {
	var t Token
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) < 10 || b[0] != tokenVersion {
		return t, errBadToken
	}
	t.Kind = b[1]
	copy(t.FP[:], b[2:10])
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
		t.Values = append(t.Values, string(b[k:k+int(l)]))
		b = b[k+int(l):]
	}
	if len(b) != 0 {
		return t, errBadToken
	}
	return t, nil
}

// Fingerprint identifies the request a token belongs to: the parts that
// decide the result order and set.
func Fingerprint(parts ...string) [8]byte {
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

// InvalidToken is the 400 for a page token of another request (another
// object type, where, object set or orderBy).
func InvalidToken(tok string) *Error {
	return Err(NameInvalidPageToken, map[string]any{"pageToken": Truncate(tok), "reason": "the token was not returned for this request (same object type, where, object set and orderBy)"})
}

// notAToken is the 400 for a pageToken that no server made: the fix is
// another value, not another request.
func notAToken(tok string) *Error {
	return Err(NameInvalidPageToken, map[string]any{"pageToken": Truncate(tok), "reason": "not a page token: pass the nextPageToken of a previous response, unchanged"})
}

// DecodeToken decodes a token of the given kind and fingerprint.
func DecodeToken(tok string, kind byte, fp [8]byte) (Token, error) {
	t, err := ParseToken(tok)
	if err != nil {
		return t, notAToken(tok)
	}
	if t.Kind != kind || t.FP != fp {
		return t, InvalidToken(tok)
	}
	return t, nil
}

func EncodeNameToken(name string) string {
	return Token{Kind: TokName, FP: Fingerprint("objectTypes"), Values: []string{name}}.Encode()
}

func DecodeNameToken(tok string) (string, error) {
	t, err := DecodeToken(tok, TokName, Fingerprint("objectTypes"))
	if err != nil {
		return "", err
	}
	if len(t.Values) != 1 {
		return "", InvalidToken(tok)
	}
	return t.Values[0], nil
}
