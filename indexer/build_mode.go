package indexer

import (
	"context"
	"errors"
	"fmt"

	"github.com/ontoindex/ontoindex/changelog"
	"github.com/ontoindex/ontoindex/objects"
)

// A type's readMode (objects.ReadMode) decides which snapshot ranges a
// build may read incrementally. changelog reads any copy-on-write range
// by diffing rows with the baseline. appendOnly reads only ranges of
// append and replace snapshots, and then only the rows of appended files,
// as new objects, without row hashes; its baseline (store.Writer.AppendOnly)
// is cheaper and only appendOnly builds may continue from it, so the
// checkpoint records the mode that wrote it.

// mode is the read mode the build runs with.
func (j *buildJob) mode() objects.ReadMode { return j.ts.spec.Mode() }

// baselineMode is the read mode of the build that wrote a checkpoint's
// baseline; checkpoints of earlier releases were all changelog.
func baselineMode(cp *Checkpoint) objects.ReadMode {
	if cp.ReadMode == "" {
		return objects.ReadModeChangelog
	}
	return cp.ReadMode
}

// fullReason says why the build must be full ("": it need not be), with
// the *changelog.AppendOnlyError behind it, if any. For an incremental
// appendOnly build it keeps the snapshots of the range in j.appendSnaps.
func (j *buildJob) fullReason(hash string) (string, error) {
	spec, cp := &j.ts.spec, j.cp
	switch {
	case j.opts.Full:
		return "--full", nil
	case j.backendFull != "" && cp != nil:
		return j.backendFull, nil
	case cp == nil:
		return "first build", nil
	case cp.TableUUID != "" && cp.TableUUID != j.tableUUID():
		return fmt.Sprintf("the table was recreated (uuid %s, was %s)", j.tableUUID(), cp.TableUUID), nil
	case cp.SemanticVersion != spec.SemanticVersion:
		return fmt.Sprintf("semanticVersion changed from %d to %d", cp.SemanticVersion, spec.SemanticVersion), nil
	case cp.MappingHash != hash:
		return "the mapping changed", nil
	case j.mode() != objects.ReadModeAppendOnly && baselineMode(cp) == objects.ReadModeAppendOnly:
		return fmt.Sprintf("readMode changed from appendOnly to %s (an appendOnly baseline keeps no row hashes)", j.mode()), nil
	case j.mode() != objects.ReadModeAppendOnly || cp.SnapshotID == j.snapID():
		return "", nil
	}
	snaps, err := changelog.AppendOnlyRange(j.tbl.Metadata(), cp.SnapshotID, j.snap)
	if err != nil {
		return err.Error(), err
	}
	j.appendSnaps = snaps
	return "", nil
}

// incrementalRequired is the error of a build that would have to be full
// when the type sets requireIncremental: it wraps ErrIncrementalRequired
// and the cause, if any (an *changelog.AppendOnlyError names the snapshot
// and its operation).
func incrementalRequired(name, reason string, cause error) error {
	if cause != nil {
		return fmt.Errorf("object type %s: %w (%w); run a build with --full to rebuild", name, ErrIncrementalRequired, cause)
	}
	return fmt.Errorf("object type %s: %w (%s); run a build with --full to rebuild", name, ErrIncrementalRequired, reason)
}

// fullNeeded is returned by an incremental appendOnly build that found,
// reading the replaces of its range, that the range is not append-only
// after all; run then builds in full instead.
// A merge-on-read build returns it with a reason when a rollback brought
// back rows its applied deletes removed (build_mergeonread.go).
type fullNeeded struct {
	err    *changelog.AppendOnlyError
	reason string
}

func (e *fullNeeded) Error() string {
	if e.err == nil {
		return e.reason
	}
	return e.err.Error()
}

func (e *fullNeeded) Unwrap() error {
	if e.err == nil {
		return nil
	}
	return e.err
}

// runIncremental runs the incremental build, and a full one if it needs
// to after all.
func (j *buildJob) runIncremental(ctx context.Context) error {
	err := j.incremental(ctx)
	var fn *fullNeeded
	if !errors.As(err, &fn) {
		return err
	}
	if j.ts.spec.RequireIncremental {
		if fn.err == nil {
			return incrementalRequired(j.name(), fn.reason, nil)
		}
		return incrementalRequired(j.name(), fn.err.Error(), fn.err)
	}
	j.appendSnaps, j.mor = nil, nil
	j.res.Kind, j.res.Reason = KindFull, fn.Error()
	return j.full(ctx)
}

// appendOnlyPlan readies an incremental appendOnly plan: the files its
// replaces wrote join the baseline unread (changelog.Plan.AppendOnly).
func (j *buildJob) appendOnlyPlan(ctx context.Context, plan *changelog.Plan) error {
	if j.appendSnaps == nil || j.res.Kind != KindIncremental {
		return nil
	}
	fs, err := j.tbl.FS(ctx)
	if err != nil {
		return &tableError{err}
	}
	err = plan.AppendOnly(ctx, fs, j.appendSnaps)
	var ao *changelog.AppendOnlyError
	switch {
	case errors.As(err, &ao):
		return &fullNeeded{err: ao}
	case err != nil:
		return &tableError{fmt.Errorf("object type %s: %w", j.name(), err)}
	}
	return nil
}
