package s3test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// client is an S3 client of the server with its current credentials,
// path-style as the server wants.
func (s *Server) client() *s3.Client { return s.clientAt(s.Endpoint()) }

// clientAt is client through another endpoint (a Meter's).
func (s *Server) clientAt(endpoint string) *s3.Client {
	access, secret := s.Credentials()
	return s3.New(s3.Options{
		Region:       s.region,
		BaseEndpoint: aws.String(endpoint),
		UsePathStyle: true,
		Credentials:  credentials.NewStaticCredentialsProvider(access, secret, ""),
	})
}

// CreateBucket creates a bucket.
func (s *Server) CreateBucket(ctx context.Context, name string) error {
	if _, err := s.client().CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(name)}); err != nil {
		return fmt.Errorf("create bucket %s: %w", name, err)
	}
	return nil
}

// MustBucket creates a bucket or fails tb.
func (s *Server) MustBucket(tb testing.TB, name string) {
	tb.Helper()
	if err := s.CreateBucket(context.Background(), name); err != nil {
		tb.Fatal(err)
	}
}

// ReadObject returns the content of an object, by its location
// s3://bucket/key.
func (s *Server) ReadObject(ctx context.Context, location string) ([]byte, error) {
	bucket, key, err := SplitLocation(location)
	if err != nil {
		return nil, err
	}
	out, err := s.client().GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		return nil, fmt.Errorf("get %s: %w", location, err)
	}
	defer out.Body.Close()
	return io.ReadAll(out.Body)
}

// WriteObject writes an object, by its location s3://bucket/key.
func (s *Server) WriteObject(ctx context.Context, location string, data []byte) error {
	bucket, key, err := SplitLocation(location)
	if err != nil {
		return err
	}
	if _, err := s.client().PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader(data)}); err != nil {
		return fmt.Errorf("put %s: %w", location, err)
	}
	return nil
}

// DeleteObject deletes an object, by its location s3://bucket/key.
func (s *Server) DeleteObject(ctx context.Context, location string) error {
	bucket, key, err := SplitLocation(location)
	if err != nil {
		return err
	}
	if _, err := s.client().DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)}); err != nil {
		return fmt.Errorf("delete %s: %w", location, err)
	}
	return nil
}

// SplitLocation splits s3://bucket/key.
func SplitLocation(location string) (bucket, key string, err error) {
	rest, ok := strings.CutPrefix(location, "s3://")
	if ok {
		bucket, key, ok = strings.Cut(rest, "/")
	}
	if !ok || bucket == "" || key == "" {
		return "", "", fmt.Errorf("%q is not s3://bucket/key", location)
	}
	return bucket, key, nil
}

// List returns the locations of the objects under a location prefix
// s3://bucket/prefix.
func (s *Server) List(ctx context.Context, prefix string) ([]string, error) {
	bucket, key, err := SplitLocation(prefix)
	if err != nil {
		return nil, err
	}
	var out []string
	p := s3.NewListObjectsV2Paginator(s.client(), &s3.ListObjectsV2Input{Bucket: aws.String(bucket), Prefix: aws.String(key)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", prefix, err)
		}
		for _, o := range page.Contents {
			out = append(out, "s3://"+bucket+"/"+aws.ToString(o.Key))
		}
	}
	return out, nil
}
