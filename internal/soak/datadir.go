package soak

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ontoindex/ontoindex/indexer/daemon"
)

// The faults of the data dir (docs/operations.md, "Faults of the data dir"): the
// index file of Item's served generation damaged in four ways, state.db
// damaged, and the disk full during an incremental build and during a
// full rebuild (diskfull.go). The writer is paused throughout.
func (r *run) dataDirPhase(ctx context.Context) error {
	if err := r.wl.pause(); err != nil {
		return fmt.Errorf("writer: %w", err)
	}
	defer r.wl.resume()
	if err := r.caughtUp(ctx); err != nil {
		return err
	}
	add := func(res FaultResult) {
		r.rep.DataDir = append(r.rep.DataDir, res)
		r.logf("data-dir fault %s: %s", res.Name, res.summary())
	}
	for i, d := range indexDamages() {
		// In turn after a graceful stop (which wrote the file) and after a
		// kill -9 (the file may be older than the store).
		res, err := r.indexFileFault(ctx, d, i%2 == 1)
		if err != nil {
			return fmt.Errorf("data-dir fault %q: %w", d.name, err)
		}
		add(res)
	}
	res, err := r.storeFault(ctx)
	if err != nil {
		return fmt.Errorf("data-dir fault %q: %w", res.Name, err)
	}
	add(res)
	results, err := r.diskFull(ctx)
	for _, res := range results {
		add(res)
	}
	if err != nil {
		return fmt.Errorf("data-dir fault disk full: %w", err)
	}
	return nil
}

// indexDamage is one way an index file gets damaged; why is what the
// warning must say of it (besides that the index file is corrupt).
type indexDamage struct {
	name   string
	damage func([]byte) ([]byte, error)
	why    string
}

func indexDamages() []indexDamage {
	return []indexDamage{
		{"index file cut short", func(b []byte) ([]byte, error) { return b[:len(b)/2], nil }, "truncated"},
		{"index file emptied", func([]byte) ([]byte, error) { return nil, nil }, "not an index file"},
		{"index file bits flipped", func(b []byte) ([]byte, error) {
			b[len(b)/2] ^= 0x04
			b[len(b)/2+9] ^= 0x40
			return b, nil
		}, ""},
		{"index file length too long", claimGiB, "truncated"},
	}
}

// claimGiB makes the first length of an index file after its header
// (magic, store version, type fingerprint, document count), the alive
// bitmap's, claim a GiB: more than the file holds.
func claimGiB(b []byte) ([]byte, error) {
	i := len("ONTOIDX\x01")
	next := func() uint64 {
		if i < 0 || i >= len(b) {
			i = -1
			return 0
		}
		v, n := binary.Uvarint(b[i:])
		if n <= 0 {
			i = -1
			return 0
		}
		i += n
		return v
	}
	next() // the store version
	if fp := next(); i >= 0 && fp < uint64(len(b)) {
		i += int(fp) // the fingerprint's bytes
	} else {
		i = -1
	}
	next() // the document count
	start := i
	next() // the alive bitmap's length
	if i < 0 {
		return nil, errors.New("not the header of an index file")
	}
	return append(binary.AppendUvarint(bytes.Clone(b[:start]), 1<<30), b[i:]...), nil
}

// indexFileFault damages the index file of Item's served generation with
// the server stopped and the warehouse moved away, and starts the server:
// it must be ready, warn of the file with its path, and serve what it
// served before without reading a table (it cannot reach them); it must
// write the file again (a next start loads it without a warning), and
// once the warehouse is back it must be up to date without a build and
// serve the tables at its checkpoint.
func (r *run) indexFileFault(ctx context.Context, d indexDamage, kill bool) (FaultResult, error) {
	res := FaultResult{Name: d.name}
	before, want, err := r.itemsBefore(ctx)
	if err != nil {
		return res, err
	}
	file := filepath.Join(r.dataDir, "types", itemType, "gen-"+strconv.Itoa(before.Generation), "index.snap")
	res.Target, res.MustName = file, []string{file, "index file is corrupt"}
	if d.why != "" {
		res.MustName = append(res.MustName, d.why)
	}
	if err := waitFile(ctx, file, 30*time.Second); err != nil {
		return res, err
	}
	how := "graceful stop"
	if kill {
		how = "kill -9"
		r.srv.kill()
	} else if err := r.srv.stop(); err != nil {
		return res, err
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		return res, fmt.Errorf("the index file of the served generation: %w", err)
	}
	damaged, err := d.damage(raw)
	if err != nil {
		return res, fmt.Errorf("damage %s: %w", file, err)
	}
	if err := os.WriteFile(file, damaged, 0o600); err != nil {
		return res, err
	}
	// What the server serves without the warehouse it read from no table.
	undo, err := moveAway(filepath.Join(r.dir, "warehouse"))
	if err != nil {
		return res, err
	}
	undone := false
	defer func() {
		if !undone {
			_ = undo()
		}
	}()
	start := time.Now()
	if err := r.startServer(ctx); err != nil {
		res.problem("the server did not start and serve on the damaged index file: %v", err)
		undone = true
		if uerr := undo(); uerr != nil {
			return res, uerr
		}
		return res, r.startServer(ctx)
	}
	res.RecoverMs = time.Since(start).Milliseconds()
	logged, err := r.srv.logged()
	if err != nil {
		return res, err
	}
	if res.Error = loggedError(lineWith(logged, "rebuilding the index from the store", file)); res.Error == "" {
		res.problem("the log does not warn of the damage with the path %s", file)
	}
	for _, n := range res.MustName[1:] {
		if res.Error != "" && !strings.Contains(res.Error, n) {
			res.problem("the warning does not say %q", n)
		}
	}
	if l := lineWith(logged, "save index file"); l != "" {
		res.problem("writing the index file again failed: %s", l)
	}
	if again, err := os.ReadFile(file); err != nil || len(again) == 0 || bytes.Equal(again, damaged) {
		res.problem("the index file was not written again (%v)", err)
	}
	st, err := r.c.status(ctx, itemType)
	if err != nil {
		return res, err
	}
	res.Untouched = st.CheckpointSnapshotID == before.CheckpointSnapshotID && st.Generation == before.Generation
	if !res.Untouched {
		res.problem("serves snapshot %d generation %d, served %d generation %d", st.CheckpointSnapshotID, st.Generation, before.CheckpointSnapshotID, before.Generation)
	}
	if res.ServedUnchanged, err = r.servedUnchanged(ctx, &res, want); err != nil {
		return res, err
	}
	undone = true
	if err := undo(); err != nil {
		return res, err
	}
	if err := r.caughtUp(ctx); err != nil {
		res.problem("not up to date once the warehouse was back: %v", err)
		return res, nil
	}
	st, err = r.c.status(ctx, itemType)
	if err != nil {
		return res, err
	}
	files, built := 0, 0
	for _, b := range st.RecentBuilds {
		files += b.FilesRead
		if b.Error == "" {
			built++
		}
	}
	if files > 0 || built > 0 || st.Generation != before.Generation || st.CheckpointSnapshotID != before.CheckpointSnapshotID {
		res.problem("the restarted server built (%d builds, %d files read; generation %d at snapshot %d): the index must come from state.db alone", built, files, st.Generation, st.CheckpointSnapshotID)
	}
	if err := r.checkRecovered(ctx, &res); err != nil {
		return res, err
	}
	// Written again: the next start loads it, with nothing to say.
	if err := r.srv.stop(); err != nil {
		return res, err
	}
	if err := r.startServer(ctx); err != nil {
		return res, err
	}
	if logged, err = r.srv.logged(); err != nil {
		return res, err
	}
	if l := lineWith(logged, "rebuilding the index"); l != "" {
		res.problem("the start after the rebuild did not load the file written again: %s", l)
	}
	res.Detail = fmt.Sprintf("after a %s; rebuilt from state.db with the warehouse away, %d files read", how, files)
	res.OK = len(res.Problems) == 0
	return res, nil
}

// servedUnchanged compares every Item the server serves with want (what it
// served before the fault) and notes a difference as a problem of res.
func (r *run) servedUnchanged(ctx context.Context, res *FaultResult, want map[int64]map[string]string) (bool, error) {
	during, err := r.c.listAll(ctx, itemType)
	if err != nil {
		res.problem("listing the objects during the fault: %v", err)
		return false, nil
	}
	var t tally
	compareObjects(&t, res.Name, itemType, want, during)
	if !t.ok() {
		res.problem("served objects changed during the fault: %v", t.Violations)
	}
	return t.ok(), ctx.Err()
}

// lineWith is the first line of text that holds every one of subs ("":
// none).
func lineWith(text string, subs ...string) string {
	for line := range strings.Lines(text) {
		all := true
		for _, s := range subs {
			all = all && strings.Contains(line, s)
		}
		if all {
			return strings.TrimSpace(line)
		}
	}
	return ""
}

// loggedError is the error of a log line of the server (slog's text
// form: error="..."), or the line when it has none.
func loggedError(line string) string {
	_, v, ok := strings.Cut(line, " error=")
	if !ok {
		return line
	}
	if q, err := strconv.QuotedPrefix(v); err == nil {
		v, _ = strconv.Unquote(q)
	}
	return v
}

// waitFile waits until a file exists (the server writes index files in
// the background after a build).
func waitFile(ctx context.Context, path string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		if _, err := os.Stat(path); err == nil {
			return nil
		} else if !errors.Is(err, os.ErrNotExist) || time.Now().After(deadline) {
			return fmt.Errorf("%s was not written within %s: %w", path, timeout, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// statusOf is the status of each object type.
func (r *run) statusOf(ctx context.Context) (map[string]daemon.TypeStatus, error) {
	out := map[string]daemon.TypeStatus{}
	for _, typ := range []string{itemType, groupType} {
		st, err := r.c.status(ctx, typ)
		if err != nil {
			return nil, err
		}
		out[typ] = st
	}
	return out, nil
}
