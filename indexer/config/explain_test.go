package config

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"strings"
	"syscall"
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

// apiError is an S3 answer as the AWS SDK's errors show it.
type apiError struct {
	code   string
	status int
}

func (e apiError) Error() string       { return fmt.Sprintf("api error %s (status %d)", e.code, e.status) }
func (e apiError) ErrorCode() string   { return e.code }
func (e apiError) HTTPStatusCode() int { return e.status }

// TestConfig_ExplainStorage classifies each kind of failed storage
// request. A refused connection stays "unreachable" even when the chain
// also says fs.ErrNotExist, as gocloud's S3 driver makes it say when the
// message holds "301" (port 36301).
func TestConfig_ExplainStorage(t *testing.T) {
	cfg := &Config{Catalogs: map[string]Catalog{"warehouse": {Type: "sql", Properties: map[string]string{"s3.endpoint": "http://127.0.0.1:36301"}}}}
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}}
	noHost := &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "minio"}}
	tests := []struct {
		name     string
		path     string
		err      error
		want     Problem // "": no StorageError
		wantText string
	}{
		{"refused", "s3://lake/t.json", refused, Unreachable, "S3 at http://127.0.0.1:36301 is unreachable (connection refused"},
		{"refused, said not found", "s3://lake/t.json", fmt.Errorf("%w: %w", fs.ErrNotExist, refused), Unreachable, "unreachable (connection refused"},
		{"no such host", "s3://lake/t.json", noHost, Unreachable, "no such host"},
		{"no such key", "s3://lake/t.json", apiError{"NoSuchKey", 404}, NoSuchObject, `no such object in bucket "lake"`},
		{"bare not found", "s3://lake/t.json", fs.ErrNotExist, NoSuchObject, `no such object in bucket "lake"`},
		{"no such bucket", "s3://lake/t.json", apiError{"NoSuchBucket", 404}, NoSuchBucket, `bucket "lake" does not exist`},
		{"denied", "s3://lake/t.json", apiError{"SignatureDoesNotMatch", 403}, AccessDenied, "access denied"},
		{"denied, said not found", "s3://lake/t.json", fmt.Errorf("%w: %w", fs.ErrNotExist, apiError{"AccessDenied", 403}), AccessDenied, "access denied"},
		{"server error", "s3://lake/t.json", apiError{"InternalError", 500}, "", "api error InternalError"},
		{"local file", "file:///w/t.json", fs.ErrNotExist, "", "file does not exist"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := cfg.Explain("warehouse.ns.t", fmt.Errorf("load table warehouse.ns.t: %w", &fs.PathError{Op: "open", Path: tt.path, Err: tt.err}))
			var se *StorageError
			got := Problem("")
			if errors.As(err, &se) {
				got = se.Problem
			}
			if got != tt.want || !strings.Contains(err.Error(), tt.wantText) || !strings.Contains(err.Error(), tt.path) {
				t.Fatalf("Explain: problem %q, %q; want problem %q, saying %q and the file", got, err, tt.want, tt.wantText)
			}
		})
	}
}
