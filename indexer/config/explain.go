package config

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"strings"
	"syscall"
)

// Problem is what went wrong with a request to storage.
type Problem string

// The problems StorageError names.
const (
	AccessDenied Problem = "access denied"
	Unreachable  Problem = "unreachable"
	NoSuchObject Problem = "no such object"
	NoSuchBucket Problem = "no such bucket"
)

// StorageError is a failed request to the object store that holds a
// catalog's tables, said plainly: the problem, the service and its
// endpoint, the bucket and the file. Callers branch on Problem.
type StorageError struct {
	Catalog  string
	Service  string // "S3"
	Endpoint string // where requests went ("": the service's default)
	Bucket   string
	Location string // the file, s3://bucket/key
	Problem  Problem
	Code     string // the service's error code (SignatureDoesNotMatch, NoSuchKey) or the network error
	Err      error  // the request's error
}

func (e *StorageError) Error() string { return e.describe(true) }

// describe says the error, naming the file at the end or not (when the
// message it goes into names it already).
func (e *StorageError) describe(withFile bool) string {
	file := ""
	if withFile {
		file = ": " + e.Location
	}
	at := e.Service + " at " + e.Endpoint
	if e.Endpoint == "" {
		at = e.Service + " (its default endpoint)"
	}
	code := ""
	if e.Code != "" {
		code = e.Code + ": "
	}
	switch e.Problem {
	case AccessDenied:
		return fmt.Sprintf("access denied to bucket %q by %s (%scheck the credentials of catalog %s: s3.access-key-id, s3.secret-access-key, s3.session-token)%s",
			e.Bucket, at, code, e.Catalog, file)
	case Unreachable:
		return fmt.Sprintf("%s is unreachable (%s; catalog %s, bucket %q)%s", at, e.Code, e.Catalog, e.Bucket, file)
	case NoSuchBucket:
		return fmt.Sprintf("bucket %q does not exist in %s (catalog %s)%s", e.Bucket, at, e.Catalog, file)
	default:
		return fmt.Sprintf("no such object in bucket %q of %s (catalog %s)%s", e.Bucket, at, e.Catalog, file)
	}
}

func (e *StorageError) Unwrap() error { return e.Err }

// explainedError is an error whose message was rewritten: the storage
// request said plainly, secrets redacted. It unwraps to the StorageError
// (when there is one) and to the original, so errors.Is and errors.As see
// both.
type explainedError struct {
	msg     string
	storage *StorageError
	err     error
}

func (e *explainedError) Error() string { return e.msg }

func (e *explainedError) Unwrap() []error {
	if e.storage != nil {
		return []error{e.storage, e.err}
	}
	return []error{e.err}
}

// Explain is the one way errors from catalogs and storage leave ontoindex
// (builds, status, logs, the command line): a failed request to the object
// store of the catalog of ref (a table reference, or a catalog name) is
// said as a StorageError in place of the stack of client errors it came
// as, and every secret of the config is redacted from the message.
func (c *Config) Explain(ref string, err error) error {
	if err == nil {
		return nil
	}
	var already *explainedError
	if errors.As(err, &already) {
		return err
	}
	name, _, _ := strings.Cut(ref, ".")
	msg := err.Error()
	se, raw := classify(err, name, c.Catalogs[name].Properties)
	if se != nil {
		if i := strings.Index(msg, raw); raw != "" && i >= 0 {
			msg = msg[:i] + se.describe(!strings.Contains(msg[:i], se.Location)) + msg[i+len(raw):]
		} else {
			msg = se.Error()
		}
	}
	return &explainedError{msg: redact(msg, c.Secrets()), storage: se, err: err}
}

// classify recognizes a failed S3 request in err: its file is the path of
// the outermost *fs.PathError with an s3 location (the FileIO's), and raw
// that error's message, which the explanation replaces.
func classify(err error, catalog string, props map[string]string) (*StorageError, string) {
	var pe *fs.PathError
	if !errors.As(err, &pe) {
		return nil, ""
	}
	scheme, rest, ok := strings.Cut(pe.Path, "://")
	if !ok || !isS3Scheme(scheme) {
		return nil, ""
	}
	bucket, _, _ := strings.Cut(rest, "/")
	se := &StorageError{Catalog: catalog, Service: "S3", Endpoint: props["s3.endpoint"], Bucket: bucket, Location: pe.Path, Err: pe}
	if se.Endpoint == "" {
		var ue *url.Error
		if errors.As(err, &ue) {
			if u, perr := url.Parse(ue.URL); perr == nil {
				se.Endpoint = u.Scheme + "://" + u.Host
			}
		}
	}
	var api interface{ ErrorCode() string }
	var status interface{ HTTPStatusCode() int }
	var op *net.OpError
	var dns *net.DNSError
	code, httpStatus := "", 0
	if errors.As(err, &api) {
		code = api.ErrorCode()
	}
	if errors.As(err, &status) {
		httpStatus = status.HTTPStatusCode()
	}
	switch {
	case code == "NoSuchBucket":
		se.Problem, se.Code = NoSuchBucket, code
	case accessDenied[code] || httpStatus == 403:
		se.Problem, se.Code = AccessDenied, code
		if se.Code == "" {
			se.Code = "HTTP 403"
		}
	case code == "NoSuchKey" || code == "NotFound" || httpStatus == 404:
		se.Problem, se.Code = NoSuchObject, code
	// A failed connection comes before fs.ErrNotExist: no answer came, so
	// whatever says "not found" guessed (gocloud's S3 driver does).
	case errors.Is(err, syscall.ECONNREFUSED):
		se.Problem, se.Code = Unreachable, "connection refused"
	case errors.As(err, &dns):
		se.Problem, se.Code = Unreachable, dns.Error()
	case errors.As(err, &op):
		se.Problem, se.Code = Unreachable, op.Err.Error()
	case errors.Is(err, fs.ErrNotExist):
		se.Problem = NoSuchObject
	default:
		return nil, ""
	}
	return se, pe.Error()
}

// accessDenied are the S3 error codes of refused credentials.
var accessDenied = map[string]bool{
	"AccessDenied": true, "SignatureDoesNotMatch": true, "InvalidAccessKeyId": true, "ExpiredToken": true,
	"InvalidToken": true, "TokenRefreshRequired": true, "AllAccessDisabled": true, "AccountProblem": true,
	"InvalidSecurity": true, "Forbidden": true,
}

func isS3Scheme(s string) bool {
	switch s {
	case "s3", "s3a", "s3n", "oss":
		return true
	}
	return false
}
