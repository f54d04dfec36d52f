package soak

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/apache/iceberg-go/table"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/daemon"
)

// FaultResult is what one fault of a table or of the data dir did.
type FaultResult struct {
	Name   string `json:"name"`
	Target string `json:"target"` // the file or directory the fault was in
	// Error is the error the status showed while the fault was in place
	// (a damaged index file: the warning the server logged; a damaged
	// state.db: the message it exited with); MustName what it had to name
	// (table, file, snapshot, what to do).
	Error    string   `json:"error,omitempty"`
	MustName []string `json:"mustName,omitempty"`
	// Untouched: the checkpoint and generation stayed; ServedUnchanged:
	// every object served during the fault was the one served before;
	// Recovered: once the fault was removed the server caught up and served
	// the tables again (RecoverMs after the removal; a damaged index file:
	// after the start of the server, which rebuilt it).
	Untouched       bool  `json:"untouched"`
	ServedUnchanged bool  `json:"servedUnchanged"`
	Recovered       bool  `json:"recovered"`
	RecoverMs       int64 `json:"recoverMs"`
	// FullBuild (recreated tables, a damaged state.db, a disk full during
	// a full rebuild): the build after it was full, in a new generation,
	// and said why.
	FullBuild string `json:"fullBuild,omitempty"`
	// Detail is what else the checks saw, for people.
	Detail string `json:"detail,omitempty"`
	// Skipped says why the fault could not be injected here (a disk-full
	// fault without root): neither survived nor failed.
	Skipped  string   `json:"skipped,omitempty"`
	OK       bool     `json:"ok"`
	Problems []string `json:"problems,omitempty"`
}

func (f *FaultResult) problem(format string, args ...any) {
	f.Problems = append(f.Problems, fmt.Sprintf(format, args...))
}

func (f FaultResult) summary() string {
	switch {
	case f.Skipped != "":
		return "skipped: " + f.Skipped
	case !f.OK:
		return "FAILED: " + strings.Join(f.Problems, "; ")
	}
	s := fmt.Sprintf("ok, recovered in %d ms", f.RecoverMs)
	for _, d := range []string{f.FullBuild, f.Detail} {
		if d != "" {
			s += "; " + d
		}
	}
	if f.Error != "" {
		e := f.Error
		if len(e) > 160 {
			e = e[:160] + "..."
		}
		s += "; error: " + e
	}
	return s
}

// fault is one fault of a table: a damage to one of its files (or to the
// warehouse), found for the snapshot the writer just committed. The error
// must name the table, and the file when named.
type fault struct {
	name   string
	target func(ctx context.Context, r *run, s *table.Snapshot) (string, error)
	damage func(path string) (undo func() error, err error)
	named  bool
}

func faults() []fault {
	corruptJSON := func(p string) (func() error, error) {
		return overwrite(p, []byte(`{"format-version": 2, "table-uuid": `))
	}
	return []fault{
		{"data file missing", addedDataFile, moveAway, true},
		{"data file corrupt", addedDataFile, truncateHalf, true},
		{"manifest missing", addedManifest, moveAway, true},
		{"manifest corrupt", addedManifest, truncateHalf, true},
		{"manifest list corrupt", manifestList, truncateHalf, true},
		{"table metadata corrupt", metadataFile, corruptJSON, false},
		{"catalog unreachable", warehouseDir, moveAway, false},
	}
}

// inject puts the fault in place and returns what it damaged, what the
// error must name, and how to remove it.
func (f fault) inject(ctx context.Context, r *run, s *table.Snapshot) (string, []string, func() error, error) {
	p, err := f.target(ctx, r, s)
	if err != nil {
		return "", nil, nil, err
	}
	undo, err := f.damage(p)
	if err != nil {
		return "", nil, nil, err
	}
	names := []string{itemsRef}
	if f.named {
		names = append(names, filepath.Base(p))
	}
	return p, names, undo, nil
}

// itemsRef is how errors name the items table.
const itemsRef = namespace + "." + itemsTable

// faultPhase injects each fault into the items table, then drops and
// recreates it, twice (with the server stopped, and while it serves). The
// writer is paused throughout.
func (r *run) faultPhase(ctx context.Context) error {
	if err := r.wl.pause(); err != nil {
		return fmt.Errorf("writer: %w", err)
	}
	defer r.wl.resume()
	for _, f := range faults() {
		res, err := r.tableFault(ctx, f)
		if err != nil {
			return fmt.Errorf("fault %q: %w", f.name, err)
		}
		r.rep.Faults = append(r.rep.Faults, res)
		r.logf("fault %s: %s", f.name, res.summary())
	}
	for _, running := range []bool{false, true} {
		res, err := r.recreateFault(ctx, running)
		if err != nil {
			return fmt.Errorf("fault %q: %w", res.Name, err)
		}
		r.rep.Faults = append(r.rep.Faults, res)
		r.logf("fault %s: %s", res.Name, res.summary())
	}
	return nil
}

// tableFault: with the server stopped, the writer commits an update and
// the fault goes in; the server starts on it and must serve what it
// served before, with an error that names what failed; once the fault is
// removed it must catch up by itself.
func (r *run) tableFault(ctx context.Context, f fault) (FaultResult, error) {
	res := FaultResult{Name: f.name}
	// The writer may have committed just before it paused: the baseline is
	// the server caught up with it, or the server's start would move the
	// checkpoint to that commit before it meets the fault.
	if err := r.caughtUp(ctx); err != nil {
		return res, err
	}
	before, want, err := r.itemsBefore(ctx)
	if err != nil {
		return res, err
	}
	if err := r.srv.stop(); err != nil {
		return res, err
	}
	if err := r.w.update(ctx); err != nil {
		return res, err
	}
	target, mustName, undo, err := f.inject(ctx, r, r.w.items.CurrentSnapshot())
	if err != nil {
		return res, err
	}
	res.Target, res.MustName = target, mustName
	undone := false
	defer func() {
		if !undone {
			_ = undo()
		}
	}()
	if err := r.startServer(ctx); err != nil {
		res.problem("the server did not start and serve on the fault: %v", err)
		undone = true
		if uerr := undo(); uerr != nil {
			return res, uerr
		}
		return res, r.startServer(ctx)
	}
	st, err := r.waitStatus(ctx, itemType, 60*time.Second, func(st daemon.TypeStatus) bool { return st.LastError != nil })
	if err != nil {
		return res, err
	}
	if st.LastError == nil {
		res.problem("no error in the status within 60 s (state %s)", st.State)
	} else {
		res.Error = st.LastError.Message
		for _, n := range mustName {
			if !strings.Contains(res.Error, n) {
				res.problem("the error does not name %s", n)
			}
		}
	}
	res.Untouched = st.CheckpointSnapshotID == before.CheckpointSnapshotID && st.Generation == before.Generation
	if !res.Untouched {
		res.problem("the checkpoint moved from snapshot %d generation %d to %d generation %d", before.CheckpointSnapshotID, before.Generation, st.CheckpointSnapshotID, st.Generation)
	}
	var t tally
	during, err := r.c.listAll(ctx, itemType)
	if err != nil {
		res.problem("listing the objects during the fault: %v", err)
	} else {
		compareObjects(&t, f.name, itemType, want, during)
		res.ServedUnchanged = t.ok()
		if !t.ok() {
			res.problem("served objects changed during the fault: %v", t.Violations)
		}
	}
	undone = true
	if err := undo(); err != nil {
		return res, err
	}
	start := time.Now()
	if err := r.caughtUp(ctx); err != nil {
		res.problem("no recovery: %v", err)
		return res, nil
	}
	res.RecoverMs = time.Since(start).Milliseconds()
	if err := r.checkRecovered(ctx, &res); err != nil {
		return res, err
	}
	res.OK = len(res.Problems) == 0
	return res, nil
}

// recreateFault drops the items table and creates it again under the same
// name with the same rows written anew (a new table uuid), with the server
// stopped or while it serves. The next builds must be full (never a diff
// against the old table's baseline) in a new generation, and serve the new
// table.
func (r *run) recreateFault(ctx context.Context, running bool) (FaultResult, error) {
	res := FaultResult{Name: "table dropped and recreated", Target: itemsRef}
	if running {
		res.Name += " (while serving)"
	}
	before, err := r.c.status(ctx, itemType)
	if err != nil {
		return res, err
	}
	if !running {
		if err := r.srv.stop(); err != nil {
			return res, err
		}
	}
	if err := r.w.recreate(ctx); err != nil {
		return res, err
	}
	start := time.Now()
	if !running {
		if err := r.startServer(ctx); err != nil {
			return res, err
		}
	}
	if err := r.caughtUp(ctx); err != nil {
		res.problem("no recovery: %v", err)
		return res, nil
	}
	res.RecoverMs, res.Untouched, res.ServedUnchanged = time.Since(start).Milliseconds(), true, true
	st, err := r.c.status(ctx, itemType)
	if err != nil {
		return res, err
	}
	switch {
	case st.Generation <= before.Generation:
		res.problem("served from generation %d, the old table's was %d: not a full build", st.Generation, before.Generation)
	case !running && (st.LastBuild == nil || st.LastBuild.Kind != "full" || !strings.Contains(st.LastBuild.Reason, "recreated")):
		res.problem("the last build is %+v, want a full build whose reason says the table was recreated", st.LastBuild)
	}
	if st.LastBuild != nil {
		res.FullBuild = fmt.Sprintf("generation %d -> %d, last build %s", before.Generation, st.Generation, buildText(st.LastBuild))
	}
	if err := r.checkRecovered(ctx, &res); err != nil {
		return res, err
	}
	res.OK = len(res.Problems) == 0
	return res, nil
}

// buildText is a build's kind and, when the build gives one, its reason:
// incremental builds have none.
func buildText(b *indexer.BuildSummary) string {
	if b.Reason == "" {
		return string(b.Kind)
	}
	return string(b.Kind) + " (" + b.Reason + ")"
}

// waitStatus waits until the status of typ is one that done accepts, or
// timeout has passed: the caller looks at the last status it returns.
func (r *run) waitStatus(ctx context.Context, typ string, timeout time.Duration, done func(daemon.TypeStatus) bool) (daemon.TypeStatus, error) {
	deadline := time.Now().Add(timeout)
	for {
		st, err := r.c.status(ctx, typ)
		if err != nil || done(st) || time.Now().After(deadline) {
			return st, err
		}
		select {
		case <-ctx.Done():
			return st, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// itemsBefore is the status of Item and every object it serves, by key:
// what a fault must leave untouched.
func (r *run) itemsBefore(ctx context.Context) (daemon.TypeStatus, map[int64]map[string]string, error) {
	st, err := r.c.status(ctx, itemType)
	if err != nil {
		return st, nil, err
	}
	served, err := r.servedByKey(ctx, itemType)
	return st, served, err
}

// checkRecovered compares what the server serves once a fault is gone
// with the tables (checkServed): the fault is recovered from when they
// are equal.
func (r *run) checkRecovered(ctx context.Context, res *FaultResult) error {
	bad := r.problems()
	if err := r.checkServed(ctx, "after "+res.Name); err != nil {
		return err
	}
	if res.Recovered = r.problems() == bad; !res.Recovered {
		res.problem("served results differ from the tables after the recovery")
	}
	return nil
}

// servedByKey is every object of typ the server serves, by key.
func (r *run) servedByKey(ctx context.Context, typ string) (map[int64]map[string]string, error) {
	served, err := r.c.listAll(ctx, typ)
	if err != nil {
		return nil, err
	}
	byKey := make(map[int64]map[string]string, len(served))
	for _, o := range served {
		byKey[mustKey(typ, o)] = o
	}
	return byKey, nil
}

func mustKey(typ string, o map[string]string) int64 {
	var k int64
	_, err := fmt.Sscan(keyOf(typ, o), &k)
	if err != nil {
		return -1
	}
	return k
}
