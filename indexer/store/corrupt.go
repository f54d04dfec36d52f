package store

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/ontoindex/ontoindex/objects"
	berrors "go.etcd.io/bbolt/errors"
)

// CorruptError reports a state.db that cannot be read: bbolt refused to
// open it, or panicked or faulted on a damaged page while it was read. Its
// message says what the operator does about it.
type CorruptError struct {
	Path string // of state.db
	Err  error
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("%s is damaged (%v): stop every indexer process that uses the data dir %s, move that dir aside "+
		"(keep it to inspect, or restore it from a backup) and start again: every object type is then built in full from its table",
		e.Path, e.Err, filepath.Dir(e.Path))
}

func (e *CorruptError) Unwrap() error { return e.Err }

// corruptOpen reports whether an error of bbolt's Open says that the file
// is not a readable database.
func corruptOpen(err error) bool {
	return errors.Is(err, berrors.ErrInvalid) || errors.Is(err, berrors.ErrChecksum) ||
		errors.Is(err, berrors.ErrVersionMismatch) || errors.Is(err, berrors.ErrInvalidMapping) ||
		strings.Contains(err.Error(), "file size too small")
}

// Guard runs fn, which reads the store at path, and turns what bbolt does
// on damaged pages into a *CorruptError: it panics on pages that are not
// what their references say, and faults on references past the end of
// the file (which SetPanicOnFault turns into a panic of this goroutine).
// A record that does not decode (objects.ErrCorrupt) is one too. (bbolt
// keeps no checksums of its pages: a damaged value that still decodes is
// not detected.)
// It is for the reads of an open, whose failure ends the process: the
// store a panic interrupted stays open and locked until the process
// exits.
func Guard(path string, fn func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if v := recover(); v != nil {
			err = &CorruptError{Path: path, Err: fmt.Errorf("reading it failed: %v", v)}
		}
	}()
	err = fn()
	var ce *CorruptError
	if errors.Is(err, objects.ErrCorrupt) && !errors.As(err, &ce) {
		err = &CorruptError{Path: path, Err: err}
	}
	return err
}
