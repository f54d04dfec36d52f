// Package s3test runs a throwaway S3 server for tests: versitygw, an
// S3 gateway used in production, with its posix backend in a temporary
// directory, on a free loopback port. Tables written there by iceberg-go
// are read by ontoindex through iceberg-go's S3 FileIO, as on AWS.
//
//	srv := s3test.Must(t, s3test.Options{})   // skips without versitygw unless CI=true
//	srv.MustBucket(t, "lake")
//	props := srv.Props()                       // s3.endpoint, s3.region, s3.access-key-id, s3.secret-access-key
//
// The binary is looked up on $PATH, then in $GOBIN and $(go env GOPATH)/bin
// (`go install` puts it there; .ci/run does so when it is missing). Without
// it Start returns an error wrapping ErrNotFound, which Must turns into a
// skip, except on CI (CI=true) where it fails the test.
//
// Shutdown stops the server and keeps its data; Restart starts it again on
// the same port, optionally with other credentials (a key rotation), so
// that tests can take the storage away under a running indexer. Meter is a
// reverse proxy in front of the server that counts the bytes each request
// fetched, to check what a client actually transferred.
package s3test
