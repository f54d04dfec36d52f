package soak

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/daemon"
	"github.com/ontoindex/ontoindex/internal/tmpfs"
)

// Names of the disk-full faults.
const (
	diskFullIncremental = "disk full (incremental build)"
	diskFullRebuild     = "disk full (full rebuild)"
)

// diskFull runs a server whose data dir is on a small tmpfs, from a first
// full build there, and fills the tmpfs with a ballast file: before an
// incremental build (no space at all) and during a full rebuild into a
// new generation (space for a third of what the data dir takes). Each
// time the build must fail with NO_SPACE and an error that names
// state.db, the last good state must keep serving (ready, the same
// generation and checkpoint, the same objects), and once the ballast is
// gone the server must finish the build by itself and serve the tables.
// Then the campaign's server starts again on its own data dir. Mounting a
// tmpfs takes root on Linux: elsewhere both faults are skipped, saying
// why.
func (r *run) diskFull(ctx context.Context) ([]FaultResult, error) {
	names := []string{diskFullIncremental, diskFullRebuild}
	skipped := func(why string) []FaultResult {
		out := make([]FaultResult, len(names))
		for i, n := range names {
			out[i] = FaultResult{Name: n, Skipped: why}
		}
		return out
	}
	if err := tmpfs.Supported(); err != nil {
		return skipped(err.Error()), nil
	}
	size, err := dirSize(r.dataDir)
	if err != nil {
		return nil, err
	}
	// Room for the first build, the inserted rows and two generations of
	// Item while the rebuild swaps in.
	size = max(4*size+16<<20, 64<<20)
	mnt := filepath.Join(r.dir, "tmpfs")
	if err := os.MkdirAll(mnt, 0o755); err != nil {
		return nil, err
	}
	tfs, err := tmpfs.Mount(mnt, size)
	if err != nil {
		return skipped(err.Error()), os.Remove(mnt)
	}
	cfgPath, dataDir := r.cfgPath, r.dataDir
	restore := func() error {
		if r.srv.alive() {
			if err := r.srv.stop(); err != nil {
				return err
			}
		}
		r.cfgPath, r.dataDir = cfgPath, dataDir
		err := errors.Join(tfs.Unmount(), os.Remove(mnt))
		if err == nil {
			err = r.startServer(ctx)
		}
		if err == nil {
			err = r.caughtUp(ctx)
		}
		return err
	}
	results, err := r.diskFullOn(ctx, tfs)
	if rerr := restore(); err == nil && rerr != nil {
		err = fmt.Errorf("back on the data dir %s: %w", dataDir, rerr)
	}
	return results, err
}

// diskFullOn moves the server onto a data dir on the tmpfs and runs both
// faults there.
func (r *run) diskFullOn(ctx context.Context, tfs *tmpfs.FS) ([]FaultResult, error) {
	if err := r.srv.stop(); err != nil {
		return nil, err
	}
	r.cfgPath, r.dataDir = filepath.Join(r.dir, "ontology-tmpfs.yaml"), filepath.Join(tfs.Dir(), "data")
	if err := r.writeConfig(); err != nil {
		return nil, err
	}
	if err := r.startServer(ctx); err != nil {
		return nil, fmt.Errorf("the first build on the tmpfs: %w", err)
	}
	if err := r.caughtUp(ctx); err != nil {
		return nil, err
	}
	// The index files are written in the background after a build: a
	// write the full disk fails would give back the space it took.
	for _, typ := range []string{itemType, groupType} {
		st, err := r.c.status(ctx, typ)
		if err != nil {
			return nil, err
		}
		if err := waitFile(ctx, filepath.Join(r.dataDir, "types", typ, "gen-"+strconv.Itoa(st.Generation), "index.snap"), 30*time.Second); err != nil {
			return nil, err
		}
	}
	var out []FaultResult
	for _, full := range []bool{false, true} {
		res, err := r.noSpace(ctx, tfs, full)
		out = append(out, res)
		if err != nil {
			return out, fmt.Errorf("%s: %w", res.Name, err)
		}
	}
	return out, nil
}

// noSpace fills the tmpfs and makes the server build: an insert of half
// as many rows as the first load (an incremental build), or a full
// rebuild of Item asked for with a third of the space the data dir takes
// left.
func (r *run) noSpace(ctx context.Context, tfs *tmpfs.FS, full bool) (FaultResult, error) {
	db := filepath.Join(r.dataDir, "state.db")
	res := FaultResult{Name: diskFullIncremental, Target: db, MustName: []string{db, "no space left on device"}}
	if full {
		res.Name = diskFullRebuild
	}
	before, want, err := r.itemsBefore(ctx)
	if err != nil {
		return res, err
	}
	var leave int64
	if full {
		used, err := tfs.Used()
		if err != nil {
			return res, err
		}
		leave = used / 3
	}
	if err := tfs.Fill(leave); err != nil {
		return res, err
	}
	drained := false
	defer func() {
		if !drained {
			_ = tfs.Drain()
		}
	}()
	if full {
		err = r.c.rebuild(ctx, itemType)
	} else {
		next := r.m.maxItem() + 1
		ids := make([]int64, max(r.o.Rows/2, 1000))
		for i := range ids {
			ids[i] = next + int64(i)
		}
		err = r.w.append(ctx, kindInsert, ids)
	}
	if err != nil {
		return res, err
	}
	st, err := r.waitStatus(ctx, itemType, time.Minute, func(st daemon.TypeStatus) bool {
		return st.LastError != nil && st.LastError.Code == indexer.CodeNoSpace
	})
	if err != nil {
		return res, err
	}
	if st.LastError == nil || st.LastError.Code != indexer.CodeNoSpace {
		res.problem("no NO_SPACE error in the status within a minute (state %s, last error %+v)", st.State, st.LastError)
	} else {
		res.Error = st.LastError.Message
		for _, n := range res.MustName {
			if !strings.Contains(res.Error, n) {
				res.problem("the error does not name %s", n)
			}
		}
	}
	res.Untouched = st.Generation == before.Generation && st.CheckpointSnapshotID == before.CheckpointSnapshotID
	if !res.Untouched {
		res.problem("on the full disk it serves snapshot %d generation %d, before %d generation %d", st.CheckpointSnapshotID, st.Generation, before.CheckpointSnapshotID, before.Generation)
	}
	if err := r.srv.waitReady(ctx, r.c.hc, 5*time.Second); err != nil {
		res.problem("not ready on the full disk: %v", err)
	}
	if res.ServedUnchanged, err = r.servedUnchanged(ctx, &res, want); err != nil {
		return res, err
	}
	if full {
		free, err := tfs.Free()
		if err != nil {
			return res, err
		}
		// The build failed part way, not at its start.
		if free > leave/2 {
			res.problem("%d KiB of the %d KiB left are still free: the rebuild failed before it wrote much", free>>10, leave>>10)
		}
		res.Detail = fmt.Sprintf("failed after writing %d KiB of the %d KiB left", (leave-free)>>10, leave>>10)
	}
	drained = true
	if err := tfs.Drain(); err != nil {
		return res, err
	}
	start := time.Now()
	if full {
		st, err = r.waitStatus(ctx, itemType, 3*time.Minute, func(st daemon.TypeStatus) bool {
			return st.Generation > before.Generation && st.State == daemon.StateIdle && st.LastError == nil
		})
		if err != nil {
			return res, err
		}
		if st.Generation <= before.Generation {
			res.problem("the rebuild did not finish once the space was back: %s at generation %d, last error %+v", st.State, st.Generation, st.LastError)
			return res, nil
		}
	}
	if err := r.caughtUp(ctx); err != nil {
		res.problem("no recovery once the space was back: %v", err)
		return res, nil
	}
	res.RecoverMs = time.Since(start).Milliseconds()
	if st, err = r.c.status(ctx, itemType); err != nil {
		return res, err
	}
	kind, gen := indexer.KindIncremental, before.Generation
	if full {
		kind, gen = indexer.KindFull, before.Generation+1
	}
	if lb := st.LastBuild; lb == nil || lb.Kind != kind || st.Generation != gen {
		res.problem("after the recovery: generation %d, last build %+v; want a %s build into generation %d", st.Generation, lb, kind, gen)
	} else if full {
		res.FullBuild = fmt.Sprintf("generation %d -> %d", before.Generation, st.Generation)
	}
	if err := r.checkRecovered(ctx, &res); err != nil {
		return res, err
	}
	res.OK = len(res.Problems) == 0
	return res, nil
}

// dirSize is what the files under dir hold.
func dirSize(dir string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err == nil {
			n += info.Size()
		}
		return err
	})
	return n, err
}
