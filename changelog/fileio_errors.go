package changelog

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"

	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/io/gocloud/blobfs"
	"gocloud.dev/gcerrors"
)

// iceberg-go's blob FileIO replaces the error of a failed request by a bare
// fs.ErrNotExist whenever gocloud says "not found", and gocloud's S3 driver
// says so for any failed operation whose message holds "301" (its guess at
// the redirect of a missing bucket): a refused connection to port 36301, or
// to a key whose uuid has 301 in it, came out as "no such object", and the
// operator went looking for a deleted file while the store was down. So a
// bare fs.ErrNotExist for an object is asked again, of the bucket itself,
// and the store's own answer takes its place.

// RecheckNotFound returns err, except that a bare fs.ErrNotExist that the
// blob FileIO for props reported for an object (the outermost
// *fs.PathError of err) is replaced by what the store says when asked again
// for the object: a refused connection, a denied request, or fs.ErrNotExist
// wrapping the store's own "no such key". It costs one HEAD request, and only
// when err says not found.
func RecheckNotFound(ctx context.Context, props map[string]string, err error) error {
	pe := bareNotFound(err)
	if pe == nil {
		return err
	}
	fsys, lerr := iceio.LoadFS(ctx, props, pe.Path)
	if lerr != nil {
		return err
	}
	if b, ok := fsys.(*blobfs.FileIO); ok {
		defer b.Close()
		return recheckNotFound(ctx, b, err)
	}
	return err
}

// rechecking wraps the FileIO that manifests are read through so that a
// failed open in blob storage is asked again (RecheckNotFound) before
// iceberg-go wraps its error; reads need Open only.
func rechecking(ctx context.Context, fsys iceio.IO) iceio.IO {
	if b, ok := fsys.(*blobfs.FileIO); ok {
		return &recheckingIO{IO: b, ctx: ctx, b: b}
	}
	return fsys
}

type recheckingIO struct {
	iceio.IO
	ctx context.Context
	b   *blobfs.FileIO
}

func (r *recheckingIO) Open(name string) (iceio.File, error) {
	f, err := r.b.Open(name)
	if err != nil {
		return nil, recheckNotFound(r.ctx, r.b, err)
	}
	return f, nil
}

// recheckNotFound is RecheckNotFound with the FileIO at hand.
func recheckNotFound(ctx context.Context, b *blobfs.FileIO, err error) error {
	pe := bareNotFound(err)
	if pe == nil {
		return err
	}
	key, ok := objectKey(pe.Path)
	if !ok {
		return err
	}
	_, aerr := b.Attributes(ctx, key)
	if aerr == nil {
		return err // there now: the first answer stands
	}
	// err was made by the FileIO for this call alone; its PathError can
	// take the cause in place.
	pe.Err = storeError(aerr)
	return err
}

// bareNotFound is the outermost *fs.PathError of err when it holds a bare
// fs.ErrNotExist (the blob FileIO's replacement), else nil.
func bareNotFound(err error) *fs.PathError {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Err == fs.ErrNotExist {
		return pe
	}
	return nil
}

// storeError is err of a request to blob storage, wrapping fs.ErrNotExist
// when the store answered that the object (or its bucket) does not exist.
func storeError(err error) error {
	if notFound(err) {
		return fmt.Errorf("%w: %w", fs.ErrNotExist, err)
	}
	return err
}

// notFound says whether the store answered "not found": gocloud's code,
// unless no answer came (a dial or DNS failure) or the answer's status was
// not 404 (see the guess above).
func notFound(err error) bool {
	if gcerrors.Code(err) != gcerrors.NotFound {
		return false
	}
	var op *net.OpError
	if errors.As(err, &op) {
		return false
	}
	var st interface{ HTTPStatusCode() int }
	if errors.As(err, &st) && st.HTTPStatusCode() != 404 {
		return false
	}
	return true
}
