package soak

import (
	"encoding/binary"
	"testing"
)

// TestClaimGiB: the damage finds the alive bitmap's length after the
// header of an index file and makes it claim a GiB, keeping the rest.
func TestClaimGiB(t *testing.T) {
	head := []byte("ONTOIDX\x01")
	head = binary.AppendUvarint(head, 300)   // store version
	head = binary.AppendUvarint(head, 5)     // fingerprint length
	head = append(head, "abcde"...)          // fingerprint
	head = binary.AppendUvarint(head, 70000) // document count
	file := binary.AppendUvarint(head, 200)  // the alive bitmap's length
	file = append(file, "the bitmap and so on"...)
	got, err := claimGiB(append([]byte(nil), file...))
	if err != nil {
		t.Fatal(err)
	}
	if string(got[:len(head)]) != string(head) {
		t.Fatalf("the header changed: %q", got[:len(head)])
	}
	v, n := binary.Uvarint(got[len(head):])
	if v != 1<<30 || string(got[len(head)+n:]) != "the bitmap and so on" {
		t.Errorf("length %d, then %q", v, got[len(head)+n:])
	}
	for _, bad := range [][]byte{nil, head[:len(head)-2], []byte("ONTOIDX\x01\x01\xff\xff\xff\xff\x0f")} {
		if _, err := claimGiB(bad); err == nil {
			t.Errorf("claimGiB(%q): no error", bad)
		}
	}
}

func TestLoggedError(t *testing.T) {
	for _, tt := range []struct{ line, want string }{
		{`time=x level=WARN msg="rebuilding" objectType=Item error="read /d/index.snap: corrupt: \"x\"" more=1`, `read /d/index.snap: corrupt: "x"`},
		{`indexer serve: /d/state.db is damaged`, `indexer serve: /d/state.db is damaged`},
		{"", ""},
	} {
		if got := loggedError(tt.line); got != tt.want {
			t.Errorf("loggedError(%q) = %q, want %q", tt.line, got, tt.want)
		}
	}
}
