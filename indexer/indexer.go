package indexer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
	"github.com/ontoindex/ontoindex/indexer/backend/opensearch"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/indexer/config/catalogs"
	"github.com/ontoindex/ontoindex/indexer/store"
	"github.com/ontoindex/ontoindex/objects"
)

// TableLoader loads the table behind an object type by its reference
// (<catalog>.<namespace...>.<table>).
type TableLoader func(ctx context.Context, ref string) (*table.Table, error)

// Progress reports how far a build is.
type Progress struct {
	ObjectType string
	Kind       Kind
	Rows       int64 // rows read so far
	TotalRows  int64 // rows the build will read (from file metadata)
	Elapsed    time.Duration
}

// Options wire an Indexer.
type Options struct {
	Logger *slog.Logger
	// LoadTable overrides how tables are loaded (default: the config's
	// catalogs through iceberg-go's catalog registry).
	LoadTable TableLoader
	// Progress, when set, receives build progress after each record batch.
	Progress func(Progress)
	// HoldMemory, when set, is called as a full build starts, and what it
	// returns as the build ends: serve lets the heap grow to its memory
	// limit's ceiling meanwhile (memorylimit.Follower.Hold).
	HoldMemory func() (release func())
}

// Indexer is the engine: it builds object types and serves their objects.
type Indexer struct {
	cfgMu sync.RWMutex // guards cfg, which Reload replaces
	cfg   *config.Config
	log   *slog.Logger
	db    *store.DB
	dir   string
	opts  Options
	// created is what Open created of dir: Close removes it if nothing
	// was stored (datadir.go).
	created newDataDir

	catMu    sync.Mutex
	catalogs map[string]catalog.Catalog

	mu     sync.RWMutex
	types  map[string]*typeState
	order  []string
	closed bool

	rl    reloadState
	saver saver    // writes index files in the background
	watch watchers // watch.go

	// clusters are the clients of the config's search backends, by name
	// (backend.go).
	clusters map[string]*opensearch.Cluster
	// afterBackend, when set (tests), runs after each write to a backend
	// (step "write") and each publish of a generation ("publish"), its
	// error failing the build as theirs would.
	afterBackend func(objectType, step string) error
	// beforeBackendWrite, when set (tests), runs before each write to a
	// backend with its count of changes; its error fails the write
	// before anything is sent.
	beforeBackendWrite func(objectType string, changes int) error
	// backendWindow, when set (tests), is the largest page the backends'
	// readers take instead of maxBackendPage.
	backendWindow int
}

// typeState is the live state of one object type.
type typeState struct {
	spec    objects.TypeSpec
	buildMu sync.Mutex // one build at a time

	mu       sync.RWMutex
	cp       *Checkpoint
	gen      *generation
	building bool
	lastErr  *ErrorInfo
	lastAt   time.Time
	// backend counts the writes to and reads from the type's search
	// backend (backend_status.go).
	backend backendStats
}

// Open opens the data directory of cfg and recovers any interrupted build.
// It creates the directory when it is missing; Close removes it again if
// nothing was stored in it (datadir.go).
func Open(ctx context.Context, cfg *config.Config, opts Options) (*Indexer, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	dir := cfg.Path(cfg.DataDir)
	db, created, err := openDataDir(dir)
	if err != nil {
		return nil, err
	}
	ix := &Indexer{cfg: cfg, log: opts.Logger, db: db, dir: dir, created: created, opts: opts,
		catalogs: map[string]catalog.Catalog{}, types: map[string]*typeState{}}
	if ix.clusters, err = openBackends(cfg, ix); err != nil {
		_ = db.Close()
		return nil, err
	}
	ix.saver.start(ix)
	// Opening the types reads the checkpoints, and the objects an index
	// is rebuilt or caught up from: the first reads of pages a damage may
	// have hit (store.Guard).
	err = store.Guard(db.Path(), func() error {
		for _, spec := range cfg.IndexedTypes() {
			if err := ix.addType(ctx, spec); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		var ce *store.CorruptError
		if errors.As(err, &ce) {
			// Close only the store: closing the types would read it again.
			// bbolt's transactions release their locks as a panic unwinds.
			ix.saver.stop()
			closeBackends(ix.clusters)
			_ = store.Guard(db.Path(), db.Close)
			return nil, err
		}
		_ = ix.Close()
		return nil, err
	}
	ix.returnLoadGarbage()
	return ix, nil
}

// addType opens an object type of the config the indexer opens with.
func (ix *Indexer) addType(ctx context.Context, spec objects.TypeSpec) error {
	ts, err := ix.loadType(ctx, spec)
	if err != nil {
		return err
	}
	ix.mu.Lock()
	ix.types[spec.APIName] = ts
	ix.order = append(ix.order, spec.APIName)
	ix.mu.Unlock()
	return nil
}

// Close closes every search index and the store.
func (ix *Indexer) Close() error {
	ix.saver.stop()
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.closed {
		return nil
	}
	ix.closed = true
	var errs []error
	for _, ts := range ix.types {
		ts.mu.Lock()
		if ts.gen != nil {
			errs = append(errs, ts.gen.close())
			ts.gen = nil
		}
		ts.mu.Unlock()
	}
	errs = append(errs, ix.closeDetached()...)
	ix.catMu.Lock()
	for _, c := range ix.catalogs {
		if cl, ok := c.(interface{ Close() error }); ok {
			errs = append(errs, cl.Close())
		}
	}
	ix.catMu.Unlock()
	errs = append(errs, closeBackends(ix.clusters)...)
	ix.removeUnused()
	errs = append(errs, ix.db.Close())
	return errors.Join(errs...)
}

// Config returns the config the indexer was opened with.
func (ix *Indexer) Config() *config.Config {
	ix.cfgMu.RLock()
	defer ix.cfgMu.RUnlock()
	return ix.cfg
}

// Types lists the indexed types in config order: the object types, then
// the link tables of many-to-many links (config.IndexedTypes).
func (ix *Indexer) Types() []string {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return slices.Clone(ix.order)
}

func (ix *Indexer) state(name string) (*typeState, error) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.closed {
		return nil, ErrClosed
	}
	ts, ok := ix.types[name]
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrUnknownType, name)
	}
	return ts, nil
}

// Checkpoint returns the checkpoint of an object type, or nil when it was
// never built.
func (ix *Indexer) Checkpoint(name string) (*Checkpoint, error) {
	ts, err := ix.state(name)
	if err != nil {
		return nil, err
	}
	ts.mu.RLock()
	defer ts.mu.RUnlock()
	return ts.cp, nil
}

// loadTable loads a table by reference through the configured catalogs.
func (ix *Indexer) loadTable(ctx context.Context, ref string) (*table.Table, error) {
	if ix.opts.LoadTable != nil {
		return ix.opts.LoadTable(ctx, ref)
	}
	r, err := config.ParseTableRef(ref)
	if err != nil {
		return nil, err
	}
	cat, err := ix.catalog(ctx, r.Catalog)
	if err != nil {
		return nil, err
	}
	return catalogs.LoadTable(ctx, cat, r)
}

func (ix *Indexer) catalog(ctx context.Context, name string) (catalog.Catalog, error) {
	ix.catMu.Lock()
	defer ix.catMu.Unlock()
	if c, ok := ix.catalogs[name]; ok {
		return c, nil
	}
	c, err := catalogs.OpenConfigured(ctx, ix.Config(), name)
	if err != nil {
		return nil, err
	}
	ix.catalogs[name] = c
	return c, nil
}

// dropGenerations deletes the generations for which drop is true, from the
// store and from disk.
func (ix *Indexer) dropGenerations(name string, drop func(int) bool) error {
	if err := ix.db.DropGenerations(name, drop); err != nil {
		return fmt.Errorf("object type %s: drop generations: %w", name, err)
	}
	entries, _ := os.ReadDir(filepath.Join(ix.dir, "types", name))
	for _, e := range entries {
		var n int
		if _, err := fmt.Sscanf(e.Name(), "gen-%d", &n); err == nil && drop(n) {
			if err := os.RemoveAll(filepath.Join(ix.dir, "types", name, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

// Table loads the table behind an object type.
func (ix *Indexer) Table(ctx context.Context, name string) (*table.Table, error) {
	p, err := ix.Poll(ctx, name)
	if err != nil {
		return nil, err
	}
	return p.tbl, nil
}

// Polled is the table behind an object type as Poll loaded it. A build
// given it (BuildOptions.Polled) plans from it rather than loading the
// table again: at a poll a second, the second load of the metadata was a
// tenth of a one-row edit's build.
type Polled struct {
	ref string // the type's table when it was loaded
	tbl *table.Table
}

// Table is the table loaded.
func (p *Polled) Table() *table.Table { return p.tbl }

// Poll loads the table behind an object type.
func (ix *Indexer) Poll(ctx context.Context, name string) (*Polled, error) {
	ts, err := ix.state(name)
	if err != nil {
		return nil, err
	}
	ref := ts.spec.Table
	tbl, err := ix.loadTable(ctx, ref)
	if err != nil {
		return nil, ix.Config().Explain(ref, &tableError{fmt.Errorf("object type %s: %w", name, err)})
	}
	return &Polled{ref: ref, tbl: tbl}, nil
}

// ObjectType returns the resolved object type: as of its checkpoint when it
// was built, else resolved against the current schema of its table.
func (ix *Indexer) ObjectType(ctx context.Context, name string) (*objects.Type, error) {
	ts, err := ix.state(name)
	if err != nil {
		return nil, err
	}
	ts.mu.RLock()
	cp := ts.cp
	ts.mu.RUnlock()
	if cp != nil && cp.Type != nil {
		return cp.Type, nil
	}
	tbl, err := ix.Table(ctx, name)
	if err != nil {
		return nil, err
	}
	t, _, err := resolve(&ts.spec, tbl, tbl.CurrentSnapshot())
	return t, err
}

// Spec returns the config spec of an object type.
func (ix *Indexer) Spec(name string) (objects.TypeSpec, error) {
	ts, err := ix.state(name)
	if err != nil {
		return objects.TypeSpec{}, err
	}
	return ts.spec, nil
}
