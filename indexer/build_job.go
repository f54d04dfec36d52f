package indexer

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/apache/iceberg-go/table"
	"github.com/ontoindex/ontoindex/changelog"
	"github.com/ontoindex/ontoindex/cowguard"
	"github.com/ontoindex/ontoindex/indexer/store"
	"github.com/ontoindex/ontoindex/objects"
)

// buildJob is one build of one object type, run by Build while it holds
// the type's build lock. plan settles what the build starts from and goes
// to and which kind it is; incremental and full (build_incremental.go,
// build_full.go) do the work; commit writes the new checkpoint in the
// store transaction that makes the work visible.
type buildJob struct {
	ix    *Indexer
	ts    *typeState
	opts  BuildOptions
	res   *BuildResult
	start time.Time

	// Set by plan.
	tbl      *table.Table
	snap     *table.Snapshot // nil for a table without snapshots
	typ      *objects.Type   // the spec resolved against the target's schema
	schemaID int
	cp       *Checkpoint       // the checkpoint the build starts from; nil before the first
	resume   *store.BuildState // an interrupted full build to the same target
	// appendSnaps are the snapshots of an incremental appendOnly build's
	// range, oldest first (build_mode.go).
	appendSnaps []table.Snapshot
	// mor, for a type with mergeOnRead: index, holds the target's delete
	// files (build_mergeonread.go).
	mor *morState
	// backendFull, set by reconcile, is why the type's backend needs a
	// full build ("": it does not).
	backendFull string
}

func (j *buildJob) name() string { return j.ts.spec.APIName }

// run plans the build and runs the kind it settles on.
func (j *buildJob) run(ctx context.Context) error {
	if err := j.reconcile(ctx); err != nil {
		return err
	}
	kind, err := j.plan(ctx)
	if err != nil {
		return err
	}
	if kind == KindNone && j.pendingRepair() {
		// The table is where the checkpoint is, and the backend is ahead
		// of both for the journaled keys: an incremental build of no
		// change sends them back.
		kind = KindIncremental
	}
	j.res.Kind = kind
	switch kind {
	case KindNone:
		return j.touch()
	case KindFull:
		return j.full(ctx)
	default:
		return j.runIncremental(ctx)
	}
}

// plan loads the table and the target snapshot, refuses merge-on-read
// before anything is read or written, resolves the type and decides the
// kind of build. res reports the kind the build attempts as soon as it is
// known, so that a failed build says what it tried.
func (j *buildJob) plan(ctx context.Context) (Kind, error) {
	spec, res := &j.ts.spec, j.res
	var tbl *table.Table
	if p := j.opts.Polled; p != nil && p.ref == spec.Table {
		tbl = p.tbl
	} else {
		var err error
		if tbl, err = j.ix.loadTable(ctx, spec.Table); err != nil {
			return "", &tableError{fmt.Errorf("object type %s: %w", spec.APIName, err)}
		}
	}
	snap, err := target(tbl, spec.Table, j.opts.SnapshotID)
	if err != nil {
		return "", err
	}
	j.tbl, j.snap = tbl, snap
	j.ts.mu.RLock()
	cp := j.ts.cp
	j.ts.mu.RUnlock()
	j.cp = cp
	if cp != nil {
		res.FromSnapshotID = cp.SnapshotID
		res.Generation = cp.Generation
	}
	res.ToSnapshotID = j.snapID()
	res.Kind, res.ReadMode = KindIncremental, j.mode()
	if j.opts.Full || cp == nil || cp.SemanticVersion != spec.SemanticVersion {
		res.Kind = KindFull
	}
	// A type with mergeOnRead: index applies delete files instead
	// (build_mergeonread.go).
	if err := j.refuseMergeOnRead(ctx); err != nil {
		return "", err
	}
	if j.typ, j.schemaID, err = resolve(spec, tbl, snap); err != nil {
		return "", err
	}

	hash := mappingHash(j.typ)
	reason, cause := j.fullReason(hash)
	full := reason != ""
	if full && cp != nil && !j.opts.Full && spec.RequireIncremental {
		return "", incrementalRequired(spec.APIName, reason, cause)
	}
	res.Reason = reason
	_, bs, err := loadCheckpoint(j.ix.db, spec.APIName)
	if err != nil {
		return "", err
	}
	if bs != nil && (bs.Target != j.snapID() || bs.MappingHash != hash || objects.ReadMode(cmp.Or(bs.ReadMode, "changelog")) != j.mode() || !full) {
		// An interrupted full build to another target: start afresh.
		if err := j.ix.abandonBuild(spec.APIName, bs); err != nil {
			return "", err
		}
		bs = nil
	}
	j.resume = bs
	switch {
	case full:
		return KindFull, nil
	case cp.SnapshotID == j.snapID():
		return KindNone, nil
	}
	return KindIncremental, nil
}

func (j *buildJob) snapID() int64 { return snapIDOf(j.snap) }

// tableUUID is the uuid of the table the build reads ("" when it has none).
func (j *buildJob) tableUUID() string {
	u := j.tbl.Metadata().TableUUID()
	if [16]byte(u) == [16]byte{} {
		return ""
	}
	return u.String()
}

// touch records a no-op build: the type may have changed (a promoted
// column, a new display name) while the data did not.
func (j *buildJob) touch() error {
	cp := *j.cp
	before, _ := json.Marshal(cp.Type)
	after, _ := json.Marshal(j.typ)
	if cp.SchemaID == j.schemaID && bytes.Equal(before, after) && cp.TableUUID == j.tableUUID() {
		return nil
	}
	cp.Type, cp.SchemaID, cp.TableUUID = j.typ, j.schemaID, j.tableUUID()
	if err := j.ix.db.PutCheckpoint(j.name(), &cp); err != nil {
		return err
	}
	j.ts.mu.Lock()
	j.ts.cp = &cp
	j.ts.mu.Unlock()
	return nil
}

// diff lists the live data files of the target (taking the manifests
// known returns from the baseline instead of reading them), plans the diff
// against the baseline of w, and prepares reads of the mapped columns.
func (j *buildJob) diff(ctx context.Context, w *store.Writer, known func(string) ([]changelog.DataFile, bool, error)) ([]changelog.Manifest, changelog.Input, error) {
	name := j.name()
	fs, err := j.tbl.FS(ctx)
	if err != nil {
		return nil, changelog.Input{}, &tableError{err}
	}
	manifests, err := changelog.LiveFiles(ctx, fs, j.snap, known)
	if err != nil {
		return nil, changelog.Input{}, &tableError{fmt.Errorf("object type %s: table %s: %w", name, j.ts.spec.Table, err)}
	}
	plan, err := changelog.PlanDiff(manifests, w.BaselineFiles)
	if err != nil {
		return nil, changelog.Input{}, fmt.Errorf("object type %s: %w", name, err)
	}
	if err := j.appendOnlyPlan(ctx, plan); err != nil {
		return nil, changelog.Input{}, err
	}
	rd, err := changelog.NewReader(j.tbl, j.snapID(), j.typ.Columns(), j.ix.Config().Build.BatchRows)
	if err != nil {
		return nil, changelog.Input{}, &SchemaError{ObjectType: name, Table: j.ts.spec.Table, SchemaID: j.schemaID, Err: err}
	}
	if j.mergeOnRead() {
		if err := j.matchDeletes(ctx, plan, rd); err != nil {
			return nil, changelog.Input{}, err
		}
	}
	in := changelog.Input{Type: j.typ, Table: j.ts.spec.Table, SnapshotID: j.snapID(), Plan: plan, Reader: rd,
		Progress: j.ix.progress(name, j.res.Kind, plan.TotalRecords(), time.Now()), AppendOnly: j.mode() == objects.ReadModeAppendOnly}
	return manifests, in, nil
}

// record copies what a diff read and applied into the result.
func (j *buildJob) record(st changelog.Stats) {
	res := j.res
	res.FilesRead, res.BytesRead, res.RowsRead = st.FilesRead, st.BytesRead, st.RowsRead
	res.Upserts, res.Deletes, res.SkippedRows = st.Inserts+st.Updates, st.Deletes, st.Skipped
}

// checkpoint is the checkpoint the build commits, in generation gen, with
// the invalid rows seen so far (the newest samples kept).
func (j *buildJob) checkpoint(gen int, inv InvalidRows) *Checkpoint {
	if len(inv.Samples) > changelog.MaxSamples {
		inv.Samples = inv.Samples[:changelog.MaxSamples]
	}
	return &Checkpoint{SnapshotID: j.snapID(), TableUUID: j.tableUUID(), SchemaID: j.schemaID, MappingHash: mappingHash(j.typ), SemanticVersion: j.ts.spec.SemanticVersion, ReadMode: j.mode(),
		Backend: j.ts.spec.Backend, Generation: gen, Type: j.typ, BuiltAt: time.Now().UTC(), InvalidRows: inv}
}

// commit commits w with next as the type's checkpoint, in the same
// transaction. The checkpoint holds the result as it will be reported when
// the build ends now.
func (j *buildJob) commit(w *store.Writer, next *Checkpoint) error {
	err := w.Commit(func() error {
		next.Objects = w.Count()
		done := *j.res
		done.DurationMs = time.Since(j.start).Milliseconds()
		done.FinishedAt = time.Now().UTC()
		next.LastBuild = &done
		return w.PutCheckpoint(next)
	})
	if err != nil {
		return fmt.Errorf("object type %s: commit: %w", j.name(), err)
	}
	return nil
}

// abandonBuild drops an interrupted full build and its generation.
func (ix *Indexer) abandonBuild(name string, bs *store.BuildState) error {
	if err := ix.db.DropBuild(name); err != nil {
		return err
	}
	return ix.dropGenerations(name, func(n int) bool { return n == bs.Generation })
}

// progress reports the rows a build has read to Options.Progress.
func (ix *Indexer) progress(name string, kind Kind, total int64, start time.Time) func(int64) {
	if ix.opts.Progress == nil {
		return nil
	}
	return func(rows int64) {
		ix.opts.Progress(Progress{ObjectType: name, Kind: kind, Rows: rows, TotalRows: total, Elapsed: time.Since(start)})
	}
}

// target resolves the snapshot a build goes to; nil for a table without
// snapshots.
func target(tbl *table.Table, ref string, id int64) (*table.Snapshot, error) {
	if id != 0 {
		s := tbl.SnapshotByID(id)
		if s == nil {
			return nil, fmt.Errorf("table %s: %w: %d", ref, ErrSnapshotNotFound, id)
		}
		return s, nil
	}
	return tbl.CurrentSnapshot(), nil
}

// resolve checks the spec against the schema a read of the target sees:
// the table's current schema for its current snapshot (as Iceberg's live
// reads do, so a dropped column is gone), the snapshot's own schema for an
// older one.
func resolve(spec *objects.TypeSpec, tbl *table.Table, snap *table.Snapshot) (*objects.Type, int, error) {
	sc := tbl.Schema()
	if cur := tbl.CurrentSnapshot(); snap != nil && cur != nil && snap.SnapshotID != cur.SnapshotID && snap.SchemaID != nil {
		for _, s := range tbl.Metadata().Schemas() {
			if s.ID == *snap.SchemaID {
				sc = s
			}
		}
	}
	t, err := spec.Resolve(changelog.Columns(sc), changelog.IdentifierColumns(sc))
	if err != nil {
		return nil, sc.ID, &SchemaError{ObjectType: spec.APIName, Table: spec.Table, SchemaID: sc.ID, Err: err}
	}
	return t, sc.ID, nil
}

func snapIDOf(s *table.Snapshot) int64 {
	if s == nil {
		return 0
	}
	return s.SnapshotID
}

// refuseMergeOnRead refuses a target with live delete files with a
// *cowguard.MergeOnReadError, unless the type indexes them.
func (j *buildJob) refuseMergeOnRead(ctx context.Context) error {
	spec := &j.ts.spec
	if spec.IndexesMergeOnRead() {
		return nil
	}
	err := cowguard.Check(ctx, j.tbl, spec.Table, j.snap)
	if err == nil {
		return nil
	}
	var mor *cowguard.MergeOnReadError
	if errors.As(err, &mor) {
		mor.ObjectType = spec.APIName
		return mor
	}
	return &tableError{fmt.Errorf("object type %s: table %s: %w", spec.APIName, spec.Table, err)}
}
