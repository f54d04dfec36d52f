package soak

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ontoindex/ontoindex/indexer"
)

// storeFault damages state.db with the server stopped (both meta pages
// zeroed, as a disk or a copy that lost its first pages leaves it): a
// start must exit with status 1 and a message that names the file and
// says to move the data dir aside. Then the campaign does what it says:
// it moves the dir aside and starts again, and every object type must be
// built in full, into a fresh data dir, and serve the tables.
func (r *run) storeFault(ctx context.Context) (FaultResult, error) {
	db := filepath.Join(r.dataDir, "state.db")
	res := FaultResult{Name: "state.db damaged", Target: db, MustName: []string{db + " is damaged", "move that dir aside", "built in full"}}
	if err := r.srv.stop(); err != nil {
		return res, err
	}
	if err := zeroMetaPages(db); err != nil {
		return res, err
	}
	s, err := r.spawn()
	if err != nil {
		return res, err
	}
	code, err := s.exitCode(ctx, time.Minute)
	if err != nil {
		res.problem("%v", err)
	} else if code != 1 {
		res.problem("exit status %d, want 1", code)
	}
	logged, err := s.logged()
	if err != nil {
		return res, err
	}
	if res.Error = lineWith(logged, db); res.Error == "" {
		res.problem("no message names %s:\n%s", db, s.tail())
	}
	for _, n := range res.MustName {
		if !strings.Contains(res.Error, n) {
			res.problem("the message does not say %q", n)
		}
	}
	if strings.Contains(logged, "panic") || strings.Contains(logged, "goroutine ") {
		res.problem("a crash, not a message:\n%s", s.tail())
	}
	res.Detail = fmt.Sprintf("exit status %d; the data dir moved aside", code)
	// What the message says: move the data dir aside and start again.
	aside := r.dataDir + ".damaged"
	if err := os.Rename(r.dataDir, aside); err != nil {
		return res, err
	}
	start := time.Now()
	if err := r.startServer(ctx); err != nil {
		res.problem("no start on a fresh data dir: %v", err)
		return res, err
	}
	if err := r.caughtUp(ctx); err != nil {
		res.problem("no recovery: %v", err)
		return res, err
	}
	res.RecoverMs = time.Since(start).Milliseconds()
	sts, err := r.statusOf(ctx)
	if err != nil {
		return res, err
	}
	var builds []string
	for _, typ := range []string{itemType, groupType} {
		st := sts[typ]
		if lb := st.LastBuild; lb == nil || lb.Kind != indexer.KindFull || st.Generation != 1 {
			res.problem("%s: generation %d, last build %+v: want a full build into generation 1 of the fresh dir", typ, st.Generation, lb)
		} else {
			builds = append(builds, fmt.Sprintf("%s built in full (%d objects, %d ms)", typ, st.Objects, lb.DurationMs))
		}
	}
	res.FullBuild = strings.Join(builds, ", ")
	if err := r.checkRecovered(ctx, &res); err != nil {
		return res, err
	}
	res.OK = len(res.Problems) == 0
	if res.OK {
		return res, os.RemoveAll(aside)
	}
	r.rep.Evidence = append(r.rep.Evidence, aside)
	return res, nil
}

// zeroMetaPages zeroes the two meta pages at the start of a bbolt file, in
// place. The page size is the first meta page's.
func zeroMetaPages(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	// A page header (id, flags, count, overflow: 16 bytes), then the meta:
	// magic, version, page size.
	var head [28]byte
	if _, err := f.ReadAt(head[:], 0); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	magic, size := binary.LittleEndian.Uint32(head[16:]), binary.LittleEndian.Uint32(head[24:])
	if magic != 0xED0CDAED || size < 512 || size > 1<<16 || size&(size-1) != 0 {
		return fmt.Errorf("%s does not start with a bbolt meta page", path)
	}
	if _, err := f.WriteAt(make([]byte, 2*size), 0); err != nil {
		return fmt.Errorf("damage %s: %w", path, err)
	}
	return f.Sync()
}
