package config

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestConfig_Redact redacts the secrets of each kind of catalog. (The test
// of Explain on real storage failures is in package catalogs, which loads
// the tables: here it would link iceberg-go into the fuzz target.)
func TestConfig_Redact(t *testing.T) {
	cfg := &Config{Catalogs: map[string]Catalog{
		"pg":   {Type: "sql", Properties: map[string]string{"uri": "postgres://lake:p%40ss-word@db:5432/lake", "s3.secret-access-key": "s3-secret-value", "s3.access-key-id": "AKIDVISIBLE"}},
		"kv":   {Type: "sql", Properties: map[string]string{"uri": "host=db user=lake password='kv pass word' dbname=lake"}},
		"rest": {Type: "rest", Properties: map[string]string{"uri": "https://polaris/api/catalog", "credential": "client:client-secret", "token": "tok"}},
	}}
	tests := []struct{ in, want string }{
		{"dial postgres://lake:p%40ss-word@db:5432/lake", "dial postgres://lake:***@db:5432/lake"},
		{"password p@ss-word in clear", "password *** in clear"},
		{"key s3-secret-value, id AKIDVISIBLE", "key ***, id AKIDVISIBLE"},
		{"conn password='kv pass word'", "conn password='***'"},
		{"oauth client:client-secret refused", "oauth *** refused"},
		{"a tok is too short to redact", "a tok is too short to redact"},
	}
	for _, tt := range tests {
		if got := cfg.Redact(tt.in); got != tt.want {
			t.Errorf("Redact(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	err := cfg.Explain("pg.ns.t", fmt.Errorf("open catalog: %w", errors.New("bad uri postgres://lake:p%40ss-word@db:5432/lake")))
	if strings.Contains(err.Error(), "p%40ss-word") || !strings.Contains(err.Error(), "open catalog: bad uri") {
		t.Fatalf("Explain: %v", err)
	}
}
