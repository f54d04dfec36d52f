package soak

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/apache/iceberg-go/table"
	"github.com/ontoindex/ontoindex/indexer/daemon"
)

// FaultResult is what one table fault did.
type FaultResult struct {
	Name   string `json:"name"`
	Target string `json:"target"` // the file or directory the fault was in
	// Error is the error the status showed while the fault was in place;
	// MustName what it had to name (table, file, snapshot).
	Error    string   `json:"error,omitempty"`
	MustName []string `json:"mustName,omitempty"`
	// Untouched: the checkpoint and generation stayed; ServedUnchanged:
	// every object served during the fault was the one served before;
	// Recovered: once the fault was removed the server caught up and served
	// the tables again (RecoverMs after the removal).
	Untouched       bool  `json:"untouched"`
	ServedUnchanged bool  `json:"servedUnchanged"`
	Recovered       bool  `json:"recovered"`
	RecoverMs       int64 `json:"recoverMs"`
	// FullBuild (recreated tables): the build after it was full, in a new
	// generation, and said why.
	FullBuild string   `json:"fullBuild,omitempty"`
	OK        bool     `json:"ok"`
	Problems  []string `json:"problems,omitempty"`
}

func (f *FaultResult) problem(format string, args ...any) {
	f.Problems = append(f.Problems, fmt.Sprintf(format, args...))
}

func (f FaultResult) summary() string {
	if !f.OK {
		return "FAILED: " + strings.Join(f.Problems, "; ")
	}
	s := fmt.Sprintf("ok, recovered in %d ms", f.RecoverMs)
	if f.FullBuild != "" {
		s += "; " + f.FullBuild
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
	before, err := r.c.status(ctx, itemType)
	if err != nil {
		return res, err
	}
	served, err := r.c.listAll(ctx, itemType)
	if err != nil {
		return res, err
	}
	want := map[int64]map[string]string{}
	for _, o := range served {
		want[mustKey(itemType, o)] = o
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
	st, err := r.waitError(ctx, itemType, 60*time.Second)
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
	res.Recovered, res.RecoverMs = true, time.Since(start).Milliseconds()
	bad := r.rep.Served.Lost + r.rep.Served.Ghost + r.rep.Served.Differs + r.rep.Served.Wrong
	if err := r.checkServed(ctx, "after "+f.name); err != nil {
		return res, err
	}
	if r.rep.Served.Lost+r.rep.Served.Ghost+r.rep.Served.Differs+r.rep.Served.Wrong != bad {
		res.problem("served results differ from the table after the recovery")
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
	res.Recovered, res.RecoverMs, res.Untouched, res.ServedUnchanged = true, time.Since(start).Milliseconds(), true, true
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
		res.FullBuild = fmt.Sprintf("generation %d -> %d, last build %s (%s)", before.Generation, st.Generation, st.LastBuild.Kind, st.LastBuild.Reason)
	}
	bad := r.rep.Served.Lost + r.rep.Served.Ghost + r.rep.Served.Differs + r.rep.Served.Wrong
	if err := r.checkServed(ctx, "after "+res.Name); err != nil {
		return res, err
	}
	if r.rep.Served.Lost+r.rep.Served.Ghost+r.rep.Served.Differs+r.rep.Served.Wrong != bad {
		res.problem("served results differ from the recreated table")
	}
	res.OK = len(res.Problems) == 0
	return res, nil
}

// waitError waits until the status of typ shows an error.
func (r *run) waitError(ctx context.Context, typ string, timeout time.Duration) (daemon.TypeStatus, error) {
	deadline := time.Now().Add(timeout)
	for {
		st, err := r.c.status(ctx, typ)
		if err != nil || st.LastError != nil || time.Now().After(deadline) {
			return st, err
		}
		select {
		case <-ctx.Done():
			return st, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func mustKey(typ string, o map[string]string) int64 {
	var k int64
	_, err := fmt.Sscan(keyOf(typ, o), &k)
	if err != nil {
		return -1
	}
	return k
}
