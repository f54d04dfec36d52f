package indexer

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ontoindex/ontoindex/cowguard"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/objects"
)

// Check returns the write-mode report of the table behind an object type.
func (ix *Indexer) Check(ctx context.Context, name string) (cowguard.Report, error) {
	ts, err := ix.state(name)
	if err != nil {
		return cowguard.Report{ObjectType: name}, err
	}
	r := cowguard.Report{ObjectType: name, Table: ts.spec.Table}
	tbl, err := ix.loadTable(ctx, ts.spec.Table)
	if err != nil {
		return r, ix.Config().Explain(ts.spec.Table, &tableError{fmt.Errorf("object type %s: %w", name, err)})
	}
	r, err = cowguard.Inspect(ctx, tbl, ts.spec.Table)
	r.ObjectType = name
	if err != nil {
		return r, ix.Config().Explain(ts.spec.Table, &tableError{fmt.Errorf("object type %s: table %s: %w", name, ts.spec.Table, err)})
	}
	if ts.spec.IndexesMergeOnRead() {
		mergeOnReadVerdict(&r)
	}
	return r, nil
}

// mergeOnReadVerdict is the verdict of a type with mergeOnRead: index:
// its delete files are indexed, so neither they nor the write modes block.
func mergeOnReadVerdict(r *cowguard.Report) {
	r.Verdict = cowguard.VerdictOK
	switch {
	case r.LiveDeleteFiles.Total() > 0:
		r.Message = fmt.Sprintf("indexed with merge-on-read (mergeOnRead: index): current snapshot %d has live delete files (%s); builds apply them incrementally", r.SnapshotID, r.LiveDeleteFiles)
	case r.WriteModes.AnyMergeOnRead():
		r.Message = fmt.Sprintf("indexed with merge-on-read (mergeOnRead: index): merge-on-read is configured (%s); builds apply its delete files incrementally", r.WriteModes)
	default:
		r.Message = "indexed with merge-on-read (mergeOnRead: index); the table is copy-on-write and has no live delete files"
	}
}

// CheckMapping checks the mapping of an object type (or link table)
// against the current schema of its table, with the function a build of
// the current snapshot resolves it with, and the links the type declares
// against the types they join, with the check a query that follows them
// runs (objects.CheckLink), and its implementations of interfaces against
// their data types (objects.InterfaceSet.CheckType). It returns a *SchemaError when the mapping
// does not fit, another error when a table could not be loaded. A link
// whose target or join table does not resolve is left to that type's own
// check.
func (ix *Indexer) CheckMapping(ctx context.Context, name string) error {
	t, schemaID, err := ix.currentType(ctx, name)
	if err != nil {
		return err
	}
	for _, side := range objects.Links(ix.Config().ObjectTypes)[name] {
		if side.LinkType != side.Source+"."+side.APIName {
			continue // the reverse side of a link another type declares
		}
		target, _, err := ix.currentType(ctx, side.Target)
		if err != nil {
			continue
		}
		var join *objects.Type
		if side.Table != "" {
			if join, _, err = ix.currentType(ctx, side.Table); err != nil {
				continue
			}
		}
		if err := objects.CheckLink(&side, t, target, join); err != nil {
			return &SchemaError{ObjectType: name, Table: t.Table, SchemaID: schemaID, Err: err}
		}
	}
	// The interfaces it implements: each mapped property of their data type.
	if set := ix.Config().InterfaceSet(); set != nil {
		if err := set.CheckType(t); err != nil {
			return &SchemaError{ObjectType: name, Table: t.Table, SchemaID: schemaID, Err: err}
		}
	}
	return nil
}

// currentType resolves a type against the current schema of its table.
func (ix *Indexer) currentType(ctx context.Context, name string) (*objects.Type, int, error) {
	ts, err := ix.state(name)
	if err != nil {
		return nil, 0, err
	}
	tbl, err := ix.loadTable(ctx, ts.spec.Table)
	if err != nil {
		return nil, 0, ix.Config().Explain(ts.spec.Table, &tableError{fmt.Errorf("object type %s: %w", name, err)})
	}
	return resolve(&ts.spec, tbl, nil)
}

// Checker is what the operators' check asks of an engine: the write modes
// of a type's table and the fit of its mapping. *Indexer implements it.
type Checker interface {
	Check(ctx context.Context, name string) (cowguard.Report, error)
	CheckMapping(ctx context.Context, name string) error
}

// VerdictError is the verdict of a table that could not be checked (it
// did not load, or its manifests could not be read). cowguard never
// returns it: it judges tables it has.
const VerdictError cowguard.Verdict = "error"

// WriteModeCheck is one line of the write-mode report: the report of the
// table, or, with Verdict error, why it could not be checked; and the
// check of the type's mapping, when the table could be checked.
type WriteModeCheck struct {
	cowguard.Report
	Error   *ErrorInfo    `json:"error,omitempty"`
	Mapping *MappingCheck `json:"mapping,omitempty"`
}

// MappingCheck is whether a type's mapping fits its table's current
// schema: verdict ok; fail with the error a build would fail with (code
// SCHEMA_MISMATCH, naming the property and the column); or error when the
// table could not be read.
type MappingCheck struct {
	Verdict cowguard.Verdict `json:"verdict"`
	Error   *ErrorInfo       `json:"error,omitempty"`
}

// WriteModeReport is the write-mode report of some object types: the body
// of GET /api/indexer/v1/checks/write-modes and what `indexer check --json`
// prints, so that a script reads both alike. Verdict is the worst verdict
// of its lines: ok, warn, fail, then error.
type WriteModeReport struct {
	Verdict     cowguard.Verdict `json:"verdict"`
	ObjectTypes []WriteModeCheck `json:"objectTypes"`
}

// verdictRank orders verdicts from best to worst.
var verdictRank = map[cowguard.Verdict]int{cowguard.VerdictOK: 0, cowguard.VerdictWarn: 1, cowguard.VerdictFail: 2, VerdictError: 3}

// CheckWriteModes checks the tables and mappings of the named object types
// with c (an *Indexer, or whatever engine a server wraps) and assembles
// their report, in the order of names. A table that could not be checked
// is a line with verdict error, not an error of the report; a type that is
// gone (ErrUnknownType: removed by a reload meanwhile) is left out. The
// report's verdict is the worst of every line's verdict and mapping
// verdict. It fails only when ctx ends.
func CheckWriteModes(ctx context.Context, c Checker, names []string) (WriteModeReport, error) {
	rep := WriteModeReport{Verdict: cowguard.VerdictOK, ObjectTypes: []WriteModeCheck{}}
	worst := func(v cowguard.Verdict) {
		if verdictRank[v] > verdictRank[rep.Verdict] {
			rep.Verdict = v
		}
	}
	canceled := func(err error) bool { return err != nil && ctx.Err() != nil }
	for _, name := range names {
		r, err := c.Check(ctx, name)
		if canceled(err) {
			return rep, fmt.Errorf("check write modes: %w", ctx.Err())
		}
		if errors.Is(err, ErrUnknownType) {
			continue
		}
		wc := WriteModeCheck{Report: r}
		if err != nil {
			wc.Verdict = VerdictError
			wc.Error = NewErrorInfo(err, time.Time{})
		} else {
			err := c.CheckMapping(ctx, name)
			if canceled(err) {
				return rep, fmt.Errorf("check mappings: %w", ctx.Err())
			}
			var se *SchemaError
			switch {
			case err == nil:
				wc.Mapping = &MappingCheck{Verdict: cowguard.VerdictOK}
			case errors.As(err, &se):
				wc.Mapping = &MappingCheck{Verdict: cowguard.VerdictFail, Error: NewErrorInfo(err, time.Time{})}
			default:
				wc.Mapping = &MappingCheck{Verdict: VerdictError, Error: NewErrorInfo(err, time.Time{})}
			}
			worst(wc.Mapping.Verdict)
		}
		worst(wc.Verdict)
		rep.ObjectTypes = append(rep.ObjectTypes, wc)
	}
	return rep, nil
}

// Status is where an object type stands.
type Status struct {
	ObjectType string      `json:"objectType"`
	Table      string      `json:"table"`
	Building   bool        `json:"building"`
	Checkpoint *Checkpoint `json:"checkpoint,omitempty"`
	LastError  *ErrorInfo  `json:"lastError,omitempty"`
	// MergeOnRead is "index" for a type that indexes merge-on-read delete
	// files (objects.MergeOnReadIndex), empty when it refuses them.
	MergeOnRead objects.MergeOnReadPolicy `json:"mergeOnRead,omitempty"`
	// Backend is how the writes to and reads from the type's search
	// backend went; nil for a type in the embedded index only.
	Backend *BackendStatus `json:"backend,omitempty"`
}

// Status reports an object type's checkpoint, whether it is building, and
// the error of its last build, if that failed.
func (ix *Indexer) Status(name string) (Status, error) {
	ts, err := ix.state(name)
	if err != nil {
		return Status{ObjectType: name}, err
	}
	ts.mu.RLock()
	defer ts.mu.RUnlock()
	st := Status{ObjectType: name, Table: ts.spec.Table, Building: ts.building, Checkpoint: ts.cp, LastError: ts.lastErr}
	if ts.spec.IndexesMergeOnRead() {
		st.MergeOnRead = objects.MergeOnReadIndex
	}
	if ts.spec.Backend != "" {
		st.Backend = ts.backend.status()
		st.Backend.Backend = ts.spec.Backend
		st.Backend.EmbeddedIndex = config.EmbeddedIndexFull
		if !ix.keepsIndex(&ts.spec) {
			st.Backend.EmbeddedIndex = config.EmbeddedIndexNone
		}
	}
	return st, nil
}

// NotReady lists the object types that have no generation to serve yet,
// in config order; the indexer is ready when it is empty.
func (ix *Indexer) NotReady() []string {
	var out []string
	for _, name := range ix.Types() {
		if cp, err := ix.Checkpoint(name); err == nil && cp == nil {
			out = append(out, name)
		}
	}
	return out
}
