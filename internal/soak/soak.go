package soak

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/catalog/hadoop"
)

// Options configure a campaign. Zero values take the defaults of
// Defaults; Bin is required.
type Options struct {
	// Bin is the indexer binary whose `serve` the campaign runs; Env its
	// environment (nil: this process's).
	Bin string
	Env []string
	// Dir holds the warehouse, the data dir, the config and the servers'
	// logs; "" makes a temporary directory, removed at the end unless
	// Keep.
	Dir  string
	Keep bool

	Kills   int           // kill -9 of the server, each followed by a restart and the checks
	Load    time.Duration // how long the clients run
	Clients int           // concurrent clients of the load
	Faults  bool          // run the table faults
	// DiskFaults runs the faults of the data dir: index file and state.db
	// damaged, disk full (this one as root on Linux only).
	DiskFaults bool
	Rows       int           // items of the first load
	Groups     int           // groups (each item links to one)
	Every      time.Duration // time between the writer's commits
	Columns    int           // schema additions at most (of the items table)
	Seed       uint64

	// Out receives the progress and the figures (nil: discarded).
	Out io.Writer
}

// Defaults are the short campaign's settings: what CI runs.
func Defaults() Options {
	return Options{Kills: 10, Load: 30 * time.Second, Clients: 20, Faults: true, DiskFaults: true, Rows: 20000, Groups: 50,
		Every: time.Second, Columns: 6, Seed: 1}
}

func (o *Options) validate() error {
	switch {
	case o.Bin == "":
		return errors.New("the indexer binary to serve with (Bin) is required")
	case o.Kills < 0:
		return fmt.Errorf("kills %d: must not be negative", o.Kills)
	case o.Load < 0:
		return fmt.Errorf("load %s: must not be negative", o.Load)
	case o.Clients < 1:
		return fmt.Errorf("clients %d: must be at least 1", o.Clients)
	case o.Rows < 1000:
		return fmt.Errorf("rows %d: must be at least 1000", o.Rows)
	case o.Groups < 1:
		return fmt.Errorf("groups %d: must be at least 1", o.Groups)
	case o.Every <= 0:
		return fmt.Errorf("every %s: must be positive", o.Every)
	}
	return nil
}

// run is one campaign in progress.
type run struct {
	o       Options
	out     io.Writer
	dir     string
	cfgPath string
	dataDir string // the config's dataDir (moved to a tmpfs for the disk-full faults)
	cat     catalog.Catalog
	m       *model
	w       *writer
	wl      *writerLoop
	srv     *server
	c       *client
	rng     *mrand.Rand
	rep     *Report
	starts  int
	// The config: the tokens' digests, and Item's semanticVersion (a
	// reload that bumps it forces a full build).
	readerSHA, adminSHA string
	semver              int
	// stopWindow bounds the random wait between SIGTERM and SIGKILL of a
	// kill during a graceful stop; it shrinks to the wait each time the
	// server stopped within it, so that the kills land while it drains
	// (see killAt).
	stopWindow time.Duration
	closers    []func() error
	evidence   int // data dirs kept after failed checks
}

// Run runs a campaign and returns its report. The error is about the
// campaign itself (a server that does not start, a table it cannot
// write); what the server did wrong is in the report (Report.OK).
func Run(ctx context.Context, o Options) (*Report, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	if o.Env == nil {
		o.Env = os.Environ()
	}
	r := &run{o: o, out: o.Out, rng: mrand.New(mrand.NewPCG(o.Seed, 0x50a4)), rep: newReport(o)}
	if r.out == nil {
		r.out = io.Discard
	}
	dir := o.Dir
	if dir == "" {
		d, err := os.MkdirTemp("", "ontoindex-soak-")
		if err != nil {
			return nil, err
		}
		dir = d
		if !o.Keep {
			defer func() {
				if r.rep.OK {
					os.RemoveAll(dir)
				} else {
					r.logf("the work files are kept in %s", dir)
				}
			}()
		}
	}
	r.dir = dir
	r.rep.Dir = dir
	err := r.campaign(ctx)
	if r.wl != nil {
		if werr := r.wl.stop(); err == nil {
			err = werr
		}
	}
	if r.srv != nil && r.srv.alive() {
		if serr := r.srv.stop(); err == nil && serr != nil {
			err = serr
		}
	}
	for _, c := range r.closers {
		_ = c()
	}
	r.rep.finish(r)
	return r.rep, err
}

func (r *run) campaign(ctx context.Context) error {
	start := time.Now()
	if err := r.setup(ctx); err != nil {
		return err
	}
	r.logf("setup: %d items in %d files, %d groups, in %s", r.o.Rows, (r.o.Rows+fileRows-1)/fileRows, r.o.Groups, time.Since(start).Round(time.Millisecond))
	if err := r.startServer(ctx); err != nil {
		return err
	}
	st, err := r.c.status(ctx, itemType)
	if err != nil {
		return err
	}
	if st.LastBuild != nil {
		r.rep.FullBuildMs = st.LastBuild.DurationMs
	}
	r.logf("served: first full builds done (Item: %d ms)", r.rep.FullBuildMs)
	if err := r.checkServed(ctx, "first build"); err != nil {
		return err
	}
	r.wl = startWriter(ctx, r.w, r.o.Every)
	if err := r.killPhase(ctx); err != nil {
		return err
	}
	if r.o.Faults {
		if err := r.faultPhase(ctx); err != nil {
			return err
		}
	}
	if r.o.DiskFaults {
		if err := r.dataDirPhase(ctx); err != nil {
			return err
		}
	}
	if r.o.Load > 0 {
		if err := r.loadPhase(ctx); err != nil {
			return err
		}
	}
	if err := r.wl.pause(); err != nil {
		return err
	}
	defer r.wl.resume()
	if err := r.caughtUp(ctx); err != nil {
		return err
	}
	if err := r.checkServed(ctx, "end"); err != nil {
		return err
	}
	if err := r.srv.stop(); err != nil {
		return fmt.Errorf("graceful stop at the end: %w", err)
	}
	return nil
}

func (r *run) logf(format string, args ...any) {
	fmt.Fprintf(r.out, "%s soak: %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

// setup writes the tables and the config, with fresh tokens.
func (r *run) setup(ctx context.Context) error {
	wh := filepath.Join(r.dir, "warehouse")
	if err := os.MkdirAll(wh, 0o755); err != nil {
		return err
	}
	cat, err := hadoop.NewCatalog(catalogName, wh, iceberg.Properties{})
	if err != nil {
		return fmt.Errorf("open hadoop catalog %s: %w", wh, err)
	}
	r.cat = cat
	r.m = newModel(r.o.Seed, r.o.Groups)
	log, err := os.Create(filepath.Join(r.dir, "commits.jsonl"))
	if err != nil {
		return err
	}
	r.closers = append(r.closers, log.Close)
	r.w = &writer{m: r.m, cat: cat, rng: mrand.New(mrand.NewPCG(r.o.Seed, 0x3717e)), maxCols: r.o.Columns, commits: map[string]int{}, log: log}
	if err := r.w.setup(ctx, r.o.Rows); err != nil {
		return err
	}
	reader, admin := newToken(), newToken()
	r.readerSHA, r.adminSHA, r.semver = digest(reader), digest(admin), 1
	r.cfgPath, r.dataDir = filepath.Join(r.dir, "ontology.yaml"), filepath.Join(r.dir, "data")
	if err := r.writeConfig(); err != nil {
		return err
	}
	r.c = &client{hc: newHTTPClient(r.o.Clients), token: reader, admin: admin}
	return nil
}

func newToken() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func digest(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// writeConfig writes the config file (atomically: a server may read it).
func (r *run) writeConfig() error {
	tmp := r.cfgPath + ".tmp"
	if err := os.WriteFile(tmp, []byte(serverConfig(r.dataDir, r.readerSHA, r.adminSHA, r.semver)), 0o644); err != nil {
		return fmt.Errorf("write config: %w", err)
	}
	return os.Rename(tmp, r.cfgPath)
}

// serverConfig is the config `indexer serve` runs with: the tables'
// properties are the defaults (every column, so that added columns
// become properties), builds commit in small chunks (a kill lands
// between chunks of a full build), and polls are frequent.
func serverConfig(dataDir, readerSHA, adminSHA string, semver int) string {
	return `# written by ontolab soak
ontology: {apiName: ` + ontology + `}
dataDir: ` + strconv.Quote(dataDir) + `
catalogs:
  ` + catalogName + `: {type: hadoop, warehouse: ./warehouse}
build: {chunkRows: 2000, batchRows: 1000}
daemon: {pollInterval: 200ms, retryBackoff: 200ms, maxRetryBackoff: 2s}
server: {requestTimeout: 2m}
auth:
  tokens:
    - {name: soak-client, sha256: ` + readerSHA + `, objectTypes: ["*"]}
    - {name: soak-admin, sha256: ` + adminSHA + `, objectTypes: ["*"], admin: true}
objectTypes:
  - apiName: ` + groupType + `
    table: ` + catalogName + `.` + namespace + `.` + groupsTable + `
    titleProperty: title
  - apiName: ` + itemType + `
    table: ` + catalogName + `.` + namespace + `.` + itemsTable + `
    titleProperty: name
    semanticVersion: ` + strconv.Itoa(semver) + `
    links:
      - {apiName: ` + groupLink + `, target: ` + groupType + `, foreignKey: grp, reverseApiName: ` + itemsLink + `}
`
}

func newHTTPClient(clients int) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns = clients + 16
	tr.MaxIdleConnsPerHost = clients + 16
	return &http.Client{Transport: tr, Timeout: 3 * time.Minute}
}

// startServer starts `indexer serve` and waits until it serves every
// object type.
func (r *run) startServer(ctx context.Context) error {
	s, err := r.spawn()
	if err != nil {
		return err
	}
	if err := s.listen(ctx); err != nil {
		return err
	}
	r.c.base = s.base
	return s.waitReady(ctx, r.c.hc, 3*time.Minute)
}

// spawn starts `indexer serve` and returns at once.
func (r *run) spawn() (*server, error) {
	r.starts++
	s, err := startServer(r.o.Bin, r.o.Env, r.cfgPath, filepath.Join(r.dir, fmt.Sprintf("serve-%03d.log", r.starts)))
	if err != nil {
		return nil, err
	}
	r.srv = s
	return s, nil
}

// caughtUp waits until both object types are idle at their table's
// current snapshot, with the writer paused.
func (r *run) caughtUp(ctx context.Context) error {
	deadline := time.Now().Add(3 * time.Minute)
	for {
		done := true
		var last string
		for _, t := range []struct {
			typ  string
			want int64
		}{{itemType, r.w.items.CurrentSnapshot().SnapshotID}, {groupType, r.w.groups.CurrentSnapshot().SnapshotID}} {
			st, err := r.c.status(ctx, t.typ)
			if err != nil {
				return err
			}
			if st.CheckpointSnapshotID != t.want || st.State != "idle" {
				done = false
				last = fmt.Sprintf("%s is %s at snapshot %d, the table at %d", t.typ, st.State, st.CheckpointSnapshotID, t.want)
				if st.LastError != nil {
					last += ": " + st.LastError.Message
				}
			}
		}
		if done {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the server did not catch up with the tables in 3 minutes: %s", last)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}
