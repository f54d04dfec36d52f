package indexer

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ontoindex/ontoindex/cowguard"
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
	return r, nil
}

// VerdictError is the verdict of a table that could not be checked (it
// did not load, or its manifests could not be read). cowguard never
// returns it: it judges tables it has.
const VerdictError cowguard.Verdict = "error"

// WriteModeCheck is one line of the write-mode report: the report of the
// table, or, with Verdict error, why it could not be checked.
type WriteModeCheck struct {
	cowguard.Report
	Error *ErrorInfo `json:"error,omitempty"`
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

// CheckWriteModes checks the tables of the named object types with check
// (Indexer.Check, or whatever engine a server wraps) and assembles their
// report, in the order of names. A table that could not be checked is a
// line with verdict error, not an error of the report; a type that is
// gone (ErrUnknownType: removed by a reload meanwhile) is left out. It
// fails only when ctx ends.
func CheckWriteModes(ctx context.Context, check func(context.Context, string) (cowguard.Report, error), names []string) (WriteModeReport, error) {
	rep := WriteModeReport{Verdict: cowguard.VerdictOK, ObjectTypes: []WriteModeCheck{}}
	for _, name := range names {
		r, err := check(ctx, name)
		if err != nil && ctx.Err() != nil {
			return rep, fmt.Errorf("check write modes: %w", ctx.Err())
		}
		if errors.Is(err, ErrUnknownType) {
			continue
		}
		wc := WriteModeCheck{Report: r}
		if err != nil {
			wc.Verdict = VerdictError
			wc.Error = NewErrorInfo(err, time.Time{})
		}
		if verdictRank[wc.Verdict] > verdictRank[rep.Verdict] {
			rep.Verdict = wc.Verdict
		}
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
	return Status{ObjectType: name, Table: ts.spec.Table, Building: ts.building, Checkpoint: ts.cp, LastError: ts.lastErr}, nil
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
