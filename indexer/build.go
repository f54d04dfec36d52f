package indexer

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/apache/iceberg-go/table"
	"github.com/ontoindex/ontoindex/changelog"
	"github.com/ontoindex/ontoindex/cowguard"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/indexer/index"
	"github.com/ontoindex/ontoindex/objects"
	bolt "go.etcd.io/bbolt"
)

// Kind is the kind of a build.
type Kind string

// Build kinds.
const (
	KindFull        Kind = "full"
	KindIncremental Kind = "incremental"
	KindNone        Kind = "none"
)

// BuildOptions select what a build does.
type BuildOptions struct {
	// Full forces a full build into a new generation.
	Full bool
	// SnapshotID builds to this snapshot instead of the current one.
	SnapshotID int64
}

// BuildResult reports one build of one object type.
type BuildResult struct {
	ObjectType     string     `json:"objectType"`
	Kind           Kind       `json:"kind"`
	FromSnapshotID int64      `json:"fromSnapshotId"`
	ToSnapshotID   int64      `json:"toSnapshotId"`
	FilesRead      int        `json:"filesRead"`
	BytesRead      int64      `json:"bytesRead"`
	RowsRead       int64      `json:"rowsRead"`
	Upserts        int64      `json:"upserts"`
	Deletes        int64      `json:"deletes"`
	SkippedRows    int64      `json:"skippedRows"`
	DurationMs     int64      `json:"durationMs"`
	Generation     int        `json:"generation,omitempty"`
	FinishedAt     time.Time  `json:"finishedAt"`
	Error          *ErrorInfo `json:"error,omitempty"`
}

// ErrorInfo is an error as builds and status report it.
type ErrorInfo struct {
	Code    string    `json:"code"`
	Message string    `json:"message"`
	At      time.Time `json:"at,omitzero"`
}

// Error codes of failed builds.
const (
	CodeMergeOnRead       = "MERGE_ON_READ"
	CodeDuplicateKeys     = "DUPLICATE_PRIMARY_KEYS"
	CodeInvalidRow        = "INVALID_ROW"
	CodeSchemaMismatch    = "SCHEMA_MISMATCH"
	CodeIncrementalNeeded = "INCREMENTAL_REQUIRED"
	CodeSnapshotNotFound  = "SNAPSHOT_NOT_FOUND"
	CodeTableNotAvailable = "TABLE_NOT_AVAILABLE"
	CodeCanceled          = "CANCELED"
	CodeInternal          = "INTERNAL"
	CodeUnknownObjectType = "UNKNOWN_OBJECT_TYPE"
)

// Errors a build can return besides those of cowguard and changelog.
var (
	// ErrIncrementalRequired: the type sets requireIncremental and the
	// build would have to be full.
	ErrIncrementalRequired = errors.New("a full build is needed but requireIncremental is set")
	// ErrSnapshotNotFound: the requested snapshot is not in the table.
	ErrSnapshotNotFound = errors.New("snapshot not found")
)

// SchemaError reports a mapping that does not fit the table's schema.
type SchemaError struct {
	ObjectType string
	Table      string
	SchemaID   int
	Err        error
}

func (e *SchemaError) Error() string {
	return fmt.Sprintf("object type %s: %v (table %s, schema id %d)", e.ObjectType, e.Err, e.Table, e.SchemaID)
}

func (e *SchemaError) Unwrap() error { return e.Err }

// tableError reports a table that could not be loaded or read.
type tableError struct{ err error }

func (e *tableError) Error() string { return e.err.Error() }
func (e *tableError) Unwrap() error { return e.err }

// ErrorCode classifies a build error.
func ErrorCode(err error) string {
	var mor *cowguard.MergeOnReadError
	var dup *changelog.DuplicateKeyError
	var inv *changelog.InvalidRowError
	var sch *SchemaError
	var te *tableError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &mor):
		return CodeMergeOnRead
	case errors.As(err, &dup):
		return CodeDuplicateKeys
	case errors.As(err, &inv):
		return CodeInvalidRow
	case errors.As(err, &sch):
		return CodeSchemaMismatch
	case errors.Is(err, ErrIncrementalRequired):
		return CodeIncrementalNeeded
	case errors.Is(err, ErrSnapshotNotFound):
		return CodeSnapshotNotFound
	case errors.Is(err, ErrUnknownType):
		return CodeUnknownObjectType
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return CodeCanceled
	case errors.As(err, &te):
		return CodeTableNotAvailable
	}
	return CodeInternal
}

// Build builds one object type to the current snapshot of its table, or to
// opts.SnapshotID. The result is returned even on error, with Error set.
func (ix *Indexer) Build(ctx context.Context, name string, opts BuildOptions) (*BuildResult, error) {
	res := &BuildResult{ObjectType: name, Kind: KindNone}
	start := time.Now()
	ts, err := ix.lockBuild(name)
	if err == nil {
		ts.mu.Lock()
		ts.building = true
		ts.mu.Unlock()
		err = ix.build(ctx, ts, opts, res, start)
		ts.mu.Lock()
		ts.building = false
		ts.lastAt = time.Now()
		if err != nil {
			ts.lastErr = &ErrorInfo{Code: ErrorCode(err), Message: err.Error(), At: ts.lastAt}
		} else {
			ts.lastErr = nil
		}
		ts.mu.Unlock()
		ts.buildMu.Unlock()
	}
	res.DurationMs = time.Since(start).Milliseconds()
	res.FinishedAt = time.Now().UTC()
	if err != nil {
		// Nothing of a failed build is served: report what it read, not
		// what it would have applied.
		res.Upserts, res.Deletes, res.SkippedRows = 0, 0, 0
		res.Error = &ErrorInfo{Code: ErrorCode(err), Message: err.Error()}
		ix.log.Warn("build failed", "objectType", name, "code", res.Error.Code, "error", err)
	} else {
		ix.log.Info("build done", "objectType", name, "kind", res.Kind, "from", res.FromSnapshotID, "to", res.ToSnapshotID,
			"filesRead", res.FilesRead, "rowsRead", res.RowsRead, "upserts", res.Upserts, "deletes", res.Deletes, "ms", res.DurationMs)
	}
	return res, err
}

// BuildAll builds every object type in config order.
func (ix *Indexer) BuildAll(ctx context.Context, opts BuildOptions) []*BuildResult {
	var out []*BuildResult
	for _, name := range ix.Types() {
		r, _ := ix.Build(ctx, name, opts)
		out = append(out, r)
	}
	return out
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

func (ix *Indexer) build(ctx context.Context, ts *typeState, opts BuildOptions, res *BuildResult, start time.Time) error {
	spec := &ts.spec
	tbl, err := ix.loadTable(ctx, spec.Table)
	if err != nil {
		return &tableError{fmt.Errorf("object type %s: %w", spec.APIName, err)}
	}
	snap, err := target(tbl, spec.Table, opts.SnapshotID)
	if err != nil {
		return err
	}
	var snapID int64
	if snap != nil {
		snapID = snap.SnapshotID
	}
	ts.mu.RLock()
	cp := ts.cp
	ts.mu.RUnlock()
	if cp != nil {
		res.FromSnapshotID = cp.SnapshotID
		res.Generation = cp.Generation
	}
	res.ToSnapshotID = snapID
	res.Kind = KindIncremental // what the build attempts; settled below
	if opts.Full || cp == nil || cp.SemanticVersion != spec.SemanticVersion {
		res.Kind = KindFull
	}
	// Refuse merge-on-read before anything is read or written.
	if err := cowguard.Check(ctx, tbl, spec.Table, snap); err != nil {
		var mor *cowguard.MergeOnReadError
		if errors.As(err, &mor) {
			mor.ObjectType = spec.APIName
			return mor
		}
		return &tableError{fmt.Errorf("object type %s: table %s: %w", spec.APIName, spec.Table, err)}
	}
	typ, schemaID, err := resolve(spec, tbl, snap)
	if err != nil {
		return err
	}

	full := opts.Full || cp == nil || cp.SemanticVersion != spec.SemanticVersion || cp.MappingHash != mappingHash(typ)
	if full && cp != nil && !opts.Full && spec.RequireIncremental {
		why := "the mapping changed"
		if cp.SemanticVersion != spec.SemanticVersion {
			why = fmt.Sprintf("semanticVersion changed from %d to %d", cp.SemanticVersion, spec.SemanticVersion)
		}
		return fmt.Errorf("object type %s: %w (%s); run a build with --full to rebuild", spec.APIName, ErrIncrementalRequired, why)
	}
	_, bs, err := loadCheckpoint(ix.db, spec.APIName)
	if err != nil {
		return err
	}
	if bs != nil && (bs.Target != snapID || bs.MappingHash != mappingHash(typ) || !full) {
		// An interrupted full build to another target: start afresh.
		if err := ix.abandonBuild(spec.APIName, bs); err != nil {
			return err
		}
		bs = nil
	}
	if !full && cp.SnapshotID == snapID {
		res.Kind = KindNone
		return ix.touchCheckpoint(ts, typ, schemaID)
	}
	if full {
		res.Kind = KindFull
		return ix.fullBuild(ctx, ts, tbl, snap, typ, schemaID, bs, res, start)
	}
	res.Kind = KindIncremental
	return ix.incrementalBuild(ctx, ts, tbl, snap, typ, schemaID, res, start)
}

// touchCheckpoint records a no-op build: the type may have changed (a
// promoted column, a new display name) while the data did not.
func (ix *Indexer) touchCheckpoint(ts *typeState, typ *objects.Type, schemaID int) error {
	ts.mu.RLock()
	cp := *ts.cp
	ts.mu.RUnlock()
	before, _ := json.Marshal(cp.Type)
	after, _ := json.Marshal(typ)
	if cp.SchemaID == schemaID && bytes.Equal(before, after) {
		return nil
	}
	cp.Type, cp.SchemaID = typ, schemaID
	err := ix.db.Update(func(tx *bolt.Tx) error {
		tb, err := typeBucket(tx, ts.spec.APIName, true)
		if err != nil {
			return err
		}
		return putJSON(tb, keyCheckpoint, &cp)
	})
	if err != nil {
		return err
	}
	ts.mu.Lock()
	ts.cp = &cp
	ts.mu.Unlock()
	return nil
}

func (ix *Indexer) abandonBuild(name string, bs *buildState) error {
	err := ix.db.Update(func(tx *bolt.Tx) error {
		tb, err := typeBucket(tx, name, false)
		if err != nil || tb == nil {
			return err
		}
		return tb.Delete(keyBuild)
	})
	if err != nil {
		return err
	}
	return ix.dropGenerations(name, func(n int) bool { return n == bs.Generation })
}

func (ix *Indexer) progress(name string, kind Kind, total int64, start time.Time) func(int64) {
	if ix.opts.Progress == nil {
		return nil
	}
	return func(rows int64) {
		ix.opts.Progress(Progress{ObjectType: name, Kind: kind, Rows: rows, TotalRows: total, Elapsed: time.Since(start)})
	}
}

func fillResult(res *BuildResult, st changelog.Stats) {
	res.FilesRead, res.BytesRead, res.RowsRead = st.FilesRead, st.BytesRead, st.RowsRead
	res.Upserts, res.Deletes, res.SkippedRows = st.Inserts+st.Updates, st.Deletes, st.Skipped
}

func (ix *Indexer) incrementalBuild(ctx context.Context, ts *typeState, tbl *table.Table, snap *table.Snapshot, typ *objects.Type, schemaID int, res *BuildResult, start time.Time) error {
	name := ts.spec.APIName
	ts.mu.RLock()
	cp, gen := ts.cp, ts.gen
	ts.mu.RUnlock()
	w, err := newGenWriter(ix.db, name, cp.Generation, false)
	if err != nil {
		return err
	}
	defer w.rollback()
	base := gen.snapshot()
	w.docs = newDocChanges(base)
	manifests, plan, rd, err := ix.planDiff(ctx, ts, tbl, snap, typ, schemaID, w, w.knownManifest)
	if err != nil {
		return err
	}
	st, err := changelog.Diff(ctx, changelog.Input{Type: typ, Table: ts.spec.Table, SnapshotID: snapIDOf(snap), Plan: plan, Reader: rd,
		Progress: ix.progress(name, KindIncremental, plan.TotalRecords(), time.Now())}, w, w)
	fillResult(res, st)
	if err != nil {
		return err
	}
	if err := w.setManifests(manifests); err != nil {
		return err
	}
	next := &Checkpoint{SnapshotID: snapIDOf(snap), SchemaID: schemaID, MappingHash: mappingHash(typ), SemanticVersion: ts.spec.SemanticVersion,
		Generation: cp.Generation, Type: typ, BuiltAt: time.Now().UTC(), InvalidRows: cp.InvalidRows}
	next.InvalidRows.Count += st.Skipped
	next.InvalidRows.Samples = append(append([]changelog.InvalidRow(nil), st.Samples...), next.InvalidRows.Samples...)
	if len(next.InvalidRows.Samples) > changelog.MaxSamples {
		next.InvalidRows.Samples = next.InvalidRows.Samples[:changelog.MaxSamples]
	}
	res.Generation = cp.Generation
	// The index of the new version is ready before the commit, so that
	// readers that see the commit find it.
	changes := w.docs.list()
	idx, err := base.Apply(changes, w.docs.version)
	if err != nil {
		return fmt.Errorf("object type %s: update index: %w", name, err)
	}
	gen.stage(idx)
	err = w.commit(func(tx *bolt.Tx, b *genBuckets) error {
		next.Objects = w.count
		next.LastBuild = finished(res, start)
		tb, err := typeBucket(tx, name, false)
		if err != nil {
			return err
		}
		return putJSON(tb, keyCheckpoint, next)
	})
	gen.promote(err == nil, len(changes))
	if err != nil {
		return fmt.Errorf("object type %s: commit: %w", name, err)
	}
	ts.mu.Lock()
	ts.cp = next
	ts.mu.Unlock()
	ix.saver.poke()
	return nil
}

// planDiff lists the live data files of snap (taking the manifests known
// returns from the baseline instead of reading them), plans the diff
// against the baseline of w, and prepares reads of the mapped columns.
func (ix *Indexer) planDiff(ctx context.Context, ts *typeState, tbl *table.Table, snap *table.Snapshot, typ *objects.Type, schemaID int,
	w *genWriter, known func(string) ([]changelog.DataFile, bool, error)) ([]changelog.Manifest, *changelog.Plan, *changelog.Reader, error) {
	name := ts.spec.APIName
	fs, err := tbl.FS(ctx)
	if err != nil {
		return nil, nil, nil, &tableError{err}
	}
	manifests, err := changelog.LiveFiles(ctx, fs, snap, known)
	if err != nil {
		return nil, nil, nil, &tableError{fmt.Errorf("object type %s: %w", name, err)}
	}
	plan, err := changelog.PlanDiff(manifests, w.baselineFiles)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("object type %s: %w", name, err)
	}
	rd, err := changelog.NewReader(tbl, snapIDOf(snap), typ.Columns(), ix.Config().Build.BatchRows)
	if err != nil {
		return nil, nil, nil, &SchemaError{ObjectType: name, Table: ts.spec.Table, SchemaID: schemaID, Err: err}
	}
	return manifests, plan, rd, nil
}

// finished is a copy of res as it will be reported when the build ends
// now, for the checkpoint the build commits.
func finished(res *BuildResult, start time.Time) *BuildResult {
	r := *res
	r.DurationMs = time.Since(start).Milliseconds()
	r.FinishedAt = time.Now().UTC()
	return &r
}

func snapIDOf(s *table.Snapshot) int64 {
	if s == nil {
		return 0
	}
	return s.SnapshotID
}

func (ix *Indexer) fullBuild(ctx context.Context, ts *typeState, tbl *table.Table, snap *table.Snapshot, typ *objects.Type, schemaID int, bs *buildState, res *BuildResult, start time.Time) error {
	name := ts.spec.APIName
	resume := bs != nil
	if !resume {
		n, err := ix.nextGeneration(name)
		if err != nil {
			return err
		}
		bs = &buildState{Generation: n, Target: snapIDOf(snap), MappingHash: mappingHash(typ), Type: typ, StartedAt: time.Now().UTC()}
		// Files left by an earlier, dropped generation n.
		if err := os.RemoveAll(ix.genDir(name, n)); err != nil {
			return err
		}
	}
	res.Generation = bs.Generation
	w, err := newGenWriter(ix.db, name, bs.Generation, true)
	if err != nil {
		return err
	}
	defer w.rollback()
	w.state, w.chunkRows = bs, ix.Config().Build.ChunkRows
	if w.chunkRows == 0 {
		w.chunkRows = config.DefaultChunkRows
	}
	w.builder = index.NewBuilder(typ)
	if resume {
		// The index of an interrupted build starts from the chunks it
		// committed.
		if w.nextDoc, err = fillBuilder(ctx, w.b, w.builder); err != nil {
			return fmt.Errorf("object type %s: resume build: %w", name, err)
		}
	}
	// Save the build record before anything else, so a crash can resume.
	if err := w.commit(nil); err != nil {
		return err
	}
	if err := w.begin(false); err != nil {
		return err
	}
	manifests, plan, rd, err := ix.planDiff(ctx, ts, tbl, snap, typ, schemaID, w, nil)
	if err != nil {
		return err
	}
	var skip map[string]int64
	if bs.PartialFile != "" {
		skip = map[string]int64{bs.PartialFile: bs.PartialRows}
	}
	st, err := changelog.Diff(ctx, changelog.Input{Type: typ, Table: ts.spec.Table, SnapshotID: snapIDOf(snap), Plan: plan, Reader: rd, Skip: skip,
		Progress: ix.progress(name, KindFull, plan.TotalRecords(), time.Now())}, w, w)
	fillResult(res, st)
	if err != nil {
		w.rollback()
		if changelog.IsDataError(err) {
			// The target itself is bad: resuming would fail again.
			if aerr := ix.abandonBuild(name, bs); aerr != nil {
				ix.log.Warn("drop failed build", "objectType", name, "error", aerr)
			}
		}
		return err
	}
	bs.Skipped += st.Skipped
	bs.Samples = append(bs.Samples, st.Samples...)
	if err := w.setManifests(manifests); err != nil {
		return err
	}
	ts.mu.RLock()
	old, oldGen := ts.cp, ts.gen
	ts.mu.RUnlock()
	next := &Checkpoint{SnapshotID: snapIDOf(snap), SchemaID: schemaID, MappingHash: mappingHash(typ), SemanticVersion: ts.spec.SemanticVersion,
		Generation: bs.Generation, Type: typ, BuiltAt: time.Now().UTC(), InvalidRows: InvalidRows{Count: bs.Skipped, Samples: bs.Samples}}
	if len(next.InvalidRows.Samples) > changelog.MaxSamples {
		next.InvalidRows.Samples = next.InvalidRows.Samples[:changelog.MaxSamples]
	}
	if old != nil {
		res.FromSnapshotID = old.SnapshotID
	}
	// Every object is indexed before the generation is switched in.
	const firstVersion = 1
	// dirty -1: no index file yet; the saver writes it.
	gen := &generation{ix: ix, name: name, n: bs.Generation, cur: w.builder.Finish(firstVersion), dirty: -1}
	w.builder = nil
	w.state = nil
	err = w.commit(func(tx *bolt.Tx, b *genBuckets) error {
		next.Objects = w.count
		next.LastBuild = finished(res, start)
		if err := b.meta.Put(keyVersion, binary.AppendUvarint(nil, firstVersion)); err != nil {
			return err
		}
		tb, err := typeBucket(tx, name, false)
		if err != nil {
			return err
		}
		if err := tb.Delete(keyBuild); err != nil {
			return err
		}
		return putJSON(tb, keyCheckpoint, next)
	})
	if err != nil {
		return fmt.Errorf("object type %s: commit: %w", name, err)
	}
	ts.mu.Lock()
	// The new generation serves: the build is over for readers of status.
	ts.cp, ts.gen, ts.building = next, gen, false
	ts.mu.Unlock()
	if oldGen != nil {
		oldGen.retire()
	}
	ix.saver.poke()
	return nil
}

func (ix *Indexer) nextGeneration(name string) (int, error) {
	n := 0
	err := ix.db.View(func(tx *bolt.Tx) error {
		gens, err := generations(tx, name)
		for _, g := range gens {
			n = max(n, g)
		}
		return err
	})
	return n + 1, err
}
