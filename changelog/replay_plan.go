package changelog

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
	"github.com/ontoindex/ontoindex/cowguard"
)

// mode is what a replay emits.
type mode int

const (
	modeRaw     mode = iota // INSERT and DELETE, carry-overs removed
	modeUpdates             // plus update images by identifier
	modeNet                 // net changes over the range
	modeLatest              // the last change per identifier
)

// plannerKind selects how data files are planned.
type plannerKind int

const (
	plannerAuto     plannerKind = iota // iceberg-go, or the manifests when it refuses the range
	plannerIceberg                     // iceberg-go's IncrementalChangelogScan
	plannerManifest                    // manifest entries, with iceberg-go's task constructors
)

func (p plannerKind) String() string {
	switch p {
	case plannerIceberg:
		return "iceberg-go"
	case plannerManifest:
		return "manifests"
	}
	return "auto"
}

// step is one snapshot of the range that takes an ordinal.
type step struct {
	ordinal    int
	snapshotID int64
	operation  string
	files      []stepFile // removed files, then added files; each sorted by path
}

// stepFile is one data file a step added or removed.
type stepFile struct {
	task    table.FileScanTask
	deleted bool
	step    int // index of the step
	index   int // index among all files of the replay
}

// Replay plans the row-level changelog of tbl over the range (From, To] of
// opts, as Spark's create_changelog_view computes it. It checks the options
// and the range, refuses a range with merge-on-read delete files
// (*cowguard.MergeOnReadError) and plans the data files; Records reads them.
func Replay(ctx context.Context, tbl *table.Table, opts Options) (*Changelog, error) {
	name := opts.Table
	if name == "" {
		name = strings.Join(tbl.Identifier(), ".")
	}
	if opts.BatchRows <= 0 {
		opts.BatchRows = DefaultBatchRows
	}
	if opts.BufferBytes == 0 {
		opts.BufferBytes = DefaultBufferBytes
	}
	chain, err := snapshotRange(tbl.Metadata(), name, opts.From, opts.To)
	if err != nil {
		return nil, err
	}
	to := chain[len(chain)-1].SnapshotID
	c := &Changelog{tbl: tbl, name: name, from: opts.From, to: to, bufferBytes: opts.BufferBytes}
	if p := chain[0].ParentSnapshotID; p != nil {
		c.from = *p
	} else {
		c.from = 0
	}

	// Like Iceberg's live reads, a range that ends at the current snapshot
	// reads through the current schema; an older end through its own.
	scanOpts := []table.ScanOption{table.WithArrowBatchSize(opts.BatchRows), table.WithMaxConcurrency(1)}
	if cur := tbl.CurrentSnapshot(); cur == nil || cur.SnapshotID != to {
		scanOpts = append(scanOpts, table.WithSnapshotID(to))
	}
	c.scan = tbl.Scan(scanOpts...)
	sc, err := c.scan.Projection()
	if err != nil {
		return nil, fmt.Errorf("table %s: schema of snapshot %d: %w", name, to, err)
	}
	if c.data, err = c.readSchema(ctx); err != nil {
		return nil, err
	}
	if err := c.resolveMode(opts, sc); err != nil {
		return nil, err
	}
	fields := append(slices.Clone(c.data.Fields()),
		arrow.Field{Name: ChangeTypeColumn, Type: arrow.BinaryTypes.String},
		arrow.Field{Name: ChangeOrdinalColumn, Type: arrow.PrimitiveTypes.Int32},
		arrow.Field{Name: CommitSnapshotColumn, Type: arrow.PrimitiveTypes.Int64})
	for _, f := range c.data.Fields() {
		if f.Name == ChangeTypeColumn || f.Name == ChangeOrdinalColumn || f.Name == CommitSnapshotColumn {
			return nil, fmt.Errorf("%w: table %s has a column named %s, which the changelog adds", ErrInvalidOptions, name, f.Name)
		}
	}
	md := c.data.Metadata()
	c.out = arrow.NewSchema(fields, &md)

	var changes []table.Snapshot
	for _, s := range chain {
		if s.Summary == nil || s.Summary.Operation == "" {
			return nil, fmt.Errorf("table %s: snapshot %d has no operation", name, s.SnapshotID)
		}
		if s.Summary.Operation == table.OpReplace {
			c.skipped = append(c.skipped, s.SnapshotID)
			continue
		}
		changes = append(changes, s)
	}
	fs, err := tbl.FS(ctx)
	if err != nil {
		return nil, fmt.Errorf("table %s: open file system: %w", name, err)
	}
	deleteManifests, err := c.checkDeletes(ctx, fs, changes)
	if err != nil {
		return nil, err
	}
	c.planner = opts.planner
	if c.planner == plannerAuto {
		c.planner = plannerIceberg
		if deleteManifests {
			// iceberg-go refuses any range whose manifest lists name a delete
			// manifest, even one without live entries.
			c.planner = plannerManifest
		}
	}
	var tasks []table.ChangelogScanTask
	switch c.planner {
	case plannerIceberg:
		tasks, err = c.planIceberg(ctx)
	default:
		tasks, err = c.planManifests(ctx, fs, changes)
	}
	if err != nil {
		return nil, err
	}
	err = c.buildSteps(changes, tasks)
	mislabelled := errors.Is(err, errAddedAndRemoved) || (err == nil && summaryDisagrees(changes, c.steps))
	if mislabelled && opts.planner == plannerAuto && c.planner == plannerIceberg {
		// iceberg-go attributes entries by their own snapshot id; a writer
		// that mislabels DELETED entries makes a file look added and
		// removed at once, or, when the mislabel names a snapshot before
		// the range, not removed at all. The manifests say who removed it.
		c.planner = plannerManifest
		if tasks, err = c.planManifests(ctx, fs, changes); err != nil {
			return nil, err
		}
		err = c.buildSteps(changes, tasks)
	}
	if err != nil {
		return nil, err
	}
	return c, nil
}

// errAddedAndRemoved marks a plan in which one snapshot adds and removes
// the same data file, which no valid snapshot does.
var errAddedAndRemoved = errors.New("added and removed by one snapshot")

// readSchema returns the arrow schema the scan reads data files with.
func (c *Changelog) readSchema(ctx context.Context) (*arrow.Schema, error) {
	sc, it, err := c.scan.ReadTasks(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("table %s: read schema of snapshot %d: %w", c.name, c.to, err)
	}
	for rec, err := range it {
		if err != nil {
			return nil, fmt.Errorf("table %s: read schema of snapshot %d: %w", c.name, c.to, err)
		}
		rec.Release()
	}
	return sc, nil
}

// resolveMode checks the options against each other and the schema at To.
func (c *Changelog) resolveMode(opts Options, sc *iceberg.Schema) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: table %s: %s", ErrInvalidOptions, c.name, fmt.Sprintf(format, args...))
	}
	if opts.Net && opts.Latest {
		return bad("net changes and identifier-latest changes cannot be combined")
	}
	updates := opts.Updates == UpdatesOn || (opts.Updates == UpdatesAuto && len(opts.Identifiers) > 0)
	switch {
	case opts.Updates < UpdatesAuto || opts.Updates > UpdatesOff:
		return bad("unknown update-image setting %d", opts.Updates)
	case opts.Latest && opts.Updates == UpdatesOff:
		return bad("identifier-latest changes need update images")
	case opts.Net && updates:
		return bad("net changes cannot be combined with update images (computeUpdates, the default when identifier columns are given)")
	}
	c.mode = modeRaw
	switch {
	case opts.Net:
		c.mode = modeNet
		return nil
	case opts.Latest:
		c.mode = modeLatest
	case updates:
		c.mode = modeUpdates
	default:
		return nil
	}
	ids := opts.Identifiers
	if len(ids) == 0 {
		ids = IdentifierColumns(sc)
		if len(ids) == 0 {
			return bad("computing update images needs identifier columns: none were given and snapshot %d has no identifier fields", c.to)
		}
	}
	for _, id := range ids {
		i := slices.IndexFunc(c.data.Fields(), func(f arrow.Field) bool { return f.Name == id })
		if i < 0 {
			return bad("identifier column %q is not a column of snapshot %d", id, c.to)
		}
		if slices.Contains(c.idIdx, i) {
			return bad("identifier column %q is listed twice", id)
		}
		c.idIdx = append(c.idIdx, i)
	}
	c.ids = slices.Clone(ids)
	return nil
}

// snapshotRange resolves (from, to] to the snapshots on the parent chain of
// to, oldest first.
func snapshotRange(meta table.Metadata, name string, from, to int64) ([]table.Snapshot, error) {
	rangeErr := func(err error, format string, args ...any) error {
		return &RangeError{Table: name, From: from, To: to, Err: err, Detail: fmt.Sprintf(format, args...)}
	}
	end := meta.CurrentSnapshot()
	if to != 0 {
		end = meta.SnapshotByID(to)
		if end == nil {
			return nil, rangeErr(ErrSnapshotNotFound, "snapshot %d (to) is not in the table's metadata", to)
		}
	} else if end == nil {
		return nil, rangeErr(ErrSnapshotNotFound, "the table has no snapshots")
	}
	if from != 0 && from == end.SnapshotID {
		return nil, rangeErr(ErrEmptyRange, "from and to are both snapshot %d: the range (from, to] is empty", from)
	}
	var chain []table.Snapshot
	seen := map[int64]bool{}
	found := from == 0
	for s := end; s != nil && !seen[s.SnapshotID]; {
		seen[s.SnapshotID] = true
		chain = append(chain, *s)
		if s.ParentSnapshotID == nil {
			break
		}
		if *s.ParentSnapshotID == from {
			found = true
			break
		}
		s = meta.SnapshotByID(*s.ParentSnapshotID)
	}
	if !found {
		if meta.SnapshotByID(from) != nil {
			return nil, rangeErr(ErrNotAncestor, "snapshot %d (from) is not an ancestor of snapshot %d (to)", from, end.SnapshotID)
		}
		return nil, rangeErr(ErrSnapshotNotFound, "snapshot %d (from) is not in the table's metadata and is not the parent of any ancestor of snapshot %d (to)", from, end.SnapshotID)
	}
	slices.Reverse(chain)
	return chain, nil
}

// checkDeletes refuses the range when a snapshot that changes rows, or the
// state it changes (its parent), has live delete files: the rows of its
// files would not be the rows of the table. The parent matters for a
// snapshot that drops delete files together with the data files they
// applied to (a copy-on-write rewrite after merge-on-read writes, as
// Iceberg's Java writers do for deletion vectors): its removed files would
// replay rows that were already deleted. It reports whether any snapshot
// that changes rows lists a delete manifest (live or not).
func (c *Changelog) checkDeletes(ctx context.Context, fs iceio.IO, changes []table.Snapshot) (bool, error) {
	meta := c.tbl.Metadata()
	checked := map[int64]bool{}
	check := func(s *table.Snapshot) error {
		if s == nil || checked[s.SnapshotID] {
			return nil
		}
		checked[s.SnapshotID] = true
		return cowguard.Check(ctx, c.tbl, c.name, s)
	}
	deleteManifests := false
	for i := range changes {
		s := &changes[i]
		if err := check(s); err != nil {
			return false, err
		}
		if s.ParentSnapshotID != nil {
			if err := check(meta.SnapshotByID(*s.ParentSnapshotID)); err != nil {
				return false, err
			}
		}
		list, err := s.Manifests(fs)
		if err != nil {
			return false, fmt.Errorf("table %s: read manifest list %s of snapshot %d: %w", c.name, s.ManifestList, s.SnapshotID, err)
		}
		for _, m := range list {
			if m.ManifestContent() == iceberg.ManifestContentDeletes {
				deleteManifests = true
			}
		}
	}
	return deleteManifests, nil
}

// planIceberg plans the data files with iceberg-go's changelog scan.
func (c *Changelog) planIceberg(ctx context.Context) ([]table.ChangelogScanTask, error) {
	scan := c.tbl.NewIncrementalChangelogScan().ToSnapshot(c.to)
	if c.from != 0 {
		scan = scan.FromSnapshotExclusive(c.from)
	}
	tasks, err := scan.PlanFiles(ctx)
	if err != nil {
		return nil, fmt.Errorf("table %s: plan changelog (%d, %d]: %w", c.name, c.from, c.to, err)
	}
	return tasks, nil
}

// planManifests plans the data files from the manifests the range's
// snapshots wrote: an ADDED entry of a snapshot is an inserted file, a
// DELETED entry a removed one. Delete manifests are not read: the range has
// no live delete files, so the ones listed hold only DELETED entries.
func (c *Changelog) planManifests(ctx context.Context, fs iceio.IO, changes []table.Snapshot) ([]table.ChangelogScanTask, error) {
	ordinals := make(map[int64]int, len(changes))
	for i, s := range changes {
		ordinals[s.SnapshotID] = i
	}
	seen := map[string]bool{}
	var tasks []table.ChangelogScanTask
	for _, s := range changes {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		list, err := s.Manifests(fs)
		if err != nil {
			return nil, fmt.Errorf("table %s: read manifest list %s of snapshot %d: %w", c.name, s.ManifestList, s.SnapshotID, err)
		}
		for _, m := range list {
			if m.ManifestContent() != iceberg.ManifestContentData || seen[m.FilePath()] {
				continue
			}
			seen[m.FilePath()] = true
			if _, ok := ordinals[m.SnapshotID()]; !ok || (m.AddedDataFiles() == 0 && m.DeletedDataFiles() == 0) {
				continue
			}
			// ADDED and DELETED entries belong to the snapshot that wrote
			// the manifest; their own snapshot id should say the same, but
			// some writers (PyIceberg 0.9's overwrite) put the adding
			// snapshot's id on DELETED entries.
			writer := m.SnapshotID()
			ord := ordinals[writer]
			for e, err := range m.Entries(fs, false) {
				if err != nil {
					return nil, fmt.Errorf("table %s: read manifest %s of snapshot %d: %w", c.name, m.FilePath(), s.SnapshotID, err)
				}
				if e.DataFile().ContentType() != iceberg.EntryContentData {
					continue
				}
				var t table.ChangelogScanTask
				switch e.Status() {
				case iceberg.EntryStatusADDED:
					t, err = table.NewAddedRowsScanTask(e.DataFile(), nil, ord, writer)
				case iceberg.EntryStatusDELETED:
					t, err = table.NewDeletedDataFileScanTask(e.DataFile(), nil, ord, writer)
				default:
					continue
				}
				if err != nil {
					return nil, fmt.Errorf("table %s: plan data file %s of snapshot %d: %w", c.name, e.DataFile().FilePath(), writer, err)
				}
				tasks = append(tasks, t)
			}
		}
	}
	return tasks, nil
}

// buildSteps groups planned tasks by ordinal, checking that the planner
// agrees with the range.
func (c *Changelog) buildSteps(changes []table.Snapshot, tasks []table.ChangelogScanTask) error {
	c.steps = make([]step, len(changes))
	for i, s := range changes {
		c.steps[i] = step{ordinal: i, snapshotID: s.SnapshotID, operation: string(s.Summary.Operation)}
	}
	for _, t := range tasks {
		ord := t.ChangeOrdinal()
		if ord < 0 || ord >= len(c.steps) || c.steps[ord].snapshotID != t.CommitSnapshotID() {
			return fmt.Errorf("table %s: %s planner put snapshot %d at ordinal %d, which does not match the range (%d, %d]",
				c.name, c.planner, t.CommitSnapshotID(), ord, c.from, c.to)
		}
		f := stepFile{task: t.ScanTask(), step: ord}
		switch t := t.(type) {
		case table.AddedRowsScanTask:
			if len(t.Deletes()) > 0 {
				return fmt.Errorf("table %s: data file %s added by snapshot %d has delete files", c.name, f.task.File.FilePath(), t.CommitSnapshotID())
			}
		case table.DeletedDataFileScanTask:
			if len(t.ExistingDeletes()) > 0 {
				return fmt.Errorf("table %s: data file %s removed by snapshot %d has delete files", c.name, f.task.File.FilePath(), t.CommitSnapshotID())
			}
			f.deleted = true
		default:
			return fmt.Errorf("table %s: snapshot %d: unsupported changelog task %T", c.name, t.CommitSnapshotID(), t)
		}
		f.task.Start, f.task.Length = 0, f.task.File.FileSizeBytes()
		f.task.DeleteFiles, f.task.EqualityDeleteFiles, f.task.DeletionVectorFiles = nil, nil, nil
		c.steps[ord].files = append(c.steps[ord].files, f)
	}
	n := 0
	for i := range c.steps {
		files := c.steps[i].files
		slices.SortFunc(files, func(a, b stepFile) int {
			if a.deleted != b.deleted {
				if a.deleted {
					return -1
				}
				return 1
			}
			return cmp.Compare(a.task.File.FilePath(), b.task.File.FilePath())
		})
		removed := map[string]bool{}
		for j, f := range files {
			path := f.task.File.FilePath()
			if j > 0 && f.deleted == files[j-1].deleted && path == files[j-1].task.File.FilePath() {
				return fmt.Errorf("table %s: snapshot %d lists data file %s twice", c.name, c.steps[i].snapshotID, path)
			}
			if f.deleted {
				removed[path] = true
			} else if removed[path] {
				return fmt.Errorf("table %s: %s planner: snapshot %d: data file %s %w", c.name, c.planner, c.steps[i].snapshotID, path, errAddedAndRemoved)
			}
		}
		for j := range files {
			files[j].index = n
			n++
		}
	}
	return nil
}

// allFiles returns every file of the replay in order: by ordinal, removed
// files before added ones.
func (c *Changelog) allFiles() []*stepFile {
	var out []*stepFile
	for i := range c.steps {
		for j := range c.steps[i].files {
			out = append(out, &c.steps[i].files[j])
		}
	}
	return out
}
