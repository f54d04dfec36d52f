package s3test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

func TestServer(t *testing.T) {
	ctx := context.Background()
	s := Must(t, Options{})
	s.MustBucket(t, "lake")
	const loc = "s3://lake/dir/object.bin"
	data := bytes.Repeat([]byte("0123456789"), 1000)
	if err := s.WriteObject(ctx, loc, data); err != nil {
		t.Fatal(err)
	}
	if got, err := s.ReadObject(ctx, loc); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("read back %d bytes, %v", len(got), err)
	}

	t.Run("shutdown and restart keep the data", func(t *testing.T) {
		if err := s.Shutdown(); err != nil {
			t.Fatal(err)
		}
		if _, err := s.ReadObject(ctx, loc); err == nil || !strings.Contains(err.Error(), "connection refused") {
			t.Fatalf("read from a stopped server: %v", err)
		}
		if err := s.Restart(ctx); err != nil {
			t.Fatal(err)
		}
		if got, err := s.ReadObject(ctx, loc); err != nil || !bytes.Equal(got, data) {
			t.Fatalf("after restart: %d bytes, %v", len(got), err)
		}
	})

	t.Run("a key rotation refuses the old key", func(t *testing.T) {
		access, secret := s.Credentials()
		old := s.client()
		if err := s.RestartWith(ctx, access, secret+"-rotated"); err != nil {
			t.Fatal(err)
		}
		if _, err := old.ListBuckets(ctx, nil); err == nil || !strings.Contains(err.Error(), "403") {
			t.Fatalf("old key after rotation: %v", err)
		}
		if _, err := s.ReadObject(ctx, loc); err != nil {
			t.Fatalf("new key: %v", err)
		}
	})

	t.Run("meter counts the bytes delivered", func(t *testing.T) {
		m := MustMeter(t, s)
		out, err := s.clientAt(m.Endpoint()).GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("lake"), Key: aws.String("dir/object.bin")})
		if err != nil {
			t.Fatal(err)
		}
		if got, err := io.ReadAll(out.Body); err != nil || !bytes.Equal(got, data) {
			t.Fatalf("through the meter: %d bytes, %v", len(got), err)
		}
		out.Body.Close()
		reqs := m.Take()
		if len(reqs) != 1 || reqs[0].Method != "GET" || reqs[0].Location() != loc || reqs[0].Bytes != int64(len(data)) || reqs[0].Status != 200 {
			t.Fatalf("requests %+v, want one GET of %s delivering %d bytes", reqs, loc, len(data))
		}
		if props := m.Props(); props["s3.endpoint"] != m.Endpoint() {
			t.Fatalf("props %v", props)
		}
	})

	if err := s.DeleteObject(ctx, loc); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ReadObject(ctx, loc); err == nil || !strings.Contains(err.Error(), "NoSuchKey") {
		t.Fatalf("deleted object: %v", err)
	}
}

func TestFindBinary(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	t.Setenv("GOBIN", "")
	t.Setenv("GOPATH", t.TempDir())
	_, err := FindBinary()
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), Install) {
		t.Fatalf("err = %v, want ErrNotFound with %q", err, Install)
	}
	if _, err := Start(context.Background(), Options{}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Start: %v, want ErrNotFound", err)
	}
}

func TestSplitLocation(t *testing.T) {
	tests := []struct {
		in          string
		bucket, key string
		ok          bool
	}{
		{"s3://lake/a/b.parquet", "lake", "a/b.parquet", true},
		{"s3://lake/", "", "", false},
		{"s3://lake", "", "", false},
		{"file:///tmp/x", "", "", false},
	}
	for _, tt := range tests {
		b, k, err := SplitLocation(tt.in)
		if (err == nil) != tt.ok || b != tt.bucket || k != tt.key {
			t.Errorf("SplitLocation(%q) = %q, %q, %v", tt.in, b, k, err)
		}
	}
}
