package indexer

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sync"

	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/indexer/config/catalogs"
	"github.com/ontoindex/ontoindex/objects"
)

// ConfigChange is how a new config's object types differ from the current
// ones. A type is changed when its spec differs in any way, or when the
// config of its catalog changed.
type ConfigChange struct {
	Added     []string `json:"added"`
	Changed   []string `json:"changed"`
	Removed   []string `json:"removed"`
	Unchanged []string `json:"unchanged"`
}

// reloadState is the part of an Indexer that reloads use.
type reloadState struct {
	mu sync.Mutex // serializes reloads
	// detached holds the states of object types a reload removed, guarded
	// by Indexer.mu. Their generations stay open for the views that still
	// read them until Close, or until the type is added back; their stored
	// state is kept, as a restart with the smaller config would keep it.
	detached map[string]*typeState
}

// Reload applies a new config without a restart: object types that were
// added are opened (resuming any stored state), changed ones are replaced
// (their serving generation keeps serving; a mapping or semanticVersion
// change makes their next build full), removed ones stop serving. Changed
// and removed catalogs are closed and reopened on demand.
//
// The new config is checked first and rejected, the old one kept, when it
// is invalid, changes dataDir, or when the table of an added or changed
// object type cannot be loaded or does not fit its mapping; the error then
// wraps ErrInvalidConfig. Reload waits for running builds of changed and
// removed types: a caller that can cancel them (the Daemon) should.
// Callers must not modify cfg afterwards.
func (ix *Indexer) Reload(ctx context.Context, cfg *config.Config) (*ConfigChange, error) {
	ix.rl.mu.Lock()
	defer ix.rl.mu.Unlock()
	ch, cats, err := ix.prepareReload(ctx, cfg)
	if err != nil {
		return nil, err
	}
	// Wait for the builds of changed and removed types and hold off new ones.
	held := map[string]*typeState{}
	defer func() {
		for _, ts := range held {
			ts.buildMu.Unlock()
		}
	}()
	for _, name := range slices.Concat(ch.Changed, ch.Removed) {
		ts, err := ix.lockBuild(name)
		if err != nil {
			return nil, err
		}
		held[name] = ts
	}
	// Open the added types before anything changes, so a failure changes nothing.
	ix.mu.RLock()
	detached := maps.Clone(ix.rl.detached)
	ix.mu.RUnlock()
	added := map[string]*typeState{}
	for _, name := range ch.Added {
		spec, _ := cfg.IndexedSpec(name)
		if old, ok := detached[name]; ok {
			added[name] = successor(old, spec)
			continue
		}
		ts, err := ix.loadType(ctx, spec)
		if err != nil {
			for n, ts := range added {
				if _, ok := detached[n]; !ok && ts.gen != nil {
					_ = ts.gen.close()
				}
			}
			return nil, err
		}
		added[name] = ts
	}

	ix.catMu.Lock()
	ix.cfgMu.Lock()
	ix.cfg = cfg
	ix.cfgMu.Unlock()
	for name := range cats {
		if c, ok := ix.catalogs[name]; ok {
			delete(ix.catalogs, name)
			if cl, ok := c.(interface{ Close() error }); ok {
				if err := cl.Close(); err != nil {
					ix.log.Warn("close catalog", "catalog", name, "error", err)
				}
			}
		}
	}
	ix.catMu.Unlock()

	ix.mu.Lock()
	if ix.rl.detached == nil {
		ix.rl.detached = map[string]*typeState{}
	}
	for _, name := range ch.Changed {
		spec, _ := cfg.IndexedSpec(name)
		ix.types[name] = successor(held[name], spec)
	}
	for _, name := range ch.Removed {
		delete(ix.types, name)
		ix.rl.detached[name] = held[name]
	}
	for name, ts := range added {
		ix.types[name] = ts
		delete(ix.rl.detached, name)
	}
	ix.order = ix.order[:0:0]
	for _, spec := range cfg.IndexedTypes() {
		ix.order = append(ix.order, spec.APIName)
	}
	ix.mu.Unlock()
	ix.log.Info("config reloaded", "added", ch.Added, "changed", ch.Changed, "removed", ch.Removed)
	for _, name := range ch.Changed {
		ix.publish(Commit{ObjectType: name, Kind: CommitReplaced})
	}
	for _, name := range ch.Removed {
		ix.publish(Commit{ObjectType: name, Kind: CommitRemoved})
	}
	return ch, nil
}

// successor is a new state for an object type with a new spec that takes
// over the serving state of old.
func successor(old *typeState, spec objects.TypeSpec) *typeState {
	old.mu.RLock()
	defer old.mu.RUnlock()
	return &typeState{spec: spec, cp: old.cp, gen: old.gen, lastErr: old.lastErr, lastAt: old.lastAt}
}

// lockBuild takes the build lock of an object type's current state; a
// state that a reload replaced while the caller waited is passed over.
func (ix *Indexer) lockBuild(name string) (*typeState, error) {
	for {
		ts, err := ix.state(name)
		if err != nil {
			return nil, err
		}
		ts.buildMu.Lock()
		if cur, err := ix.state(name); err == nil && cur == ts {
			return ts, nil
		}
		ts.buildMu.Unlock()
	}
}

// loadType opens the stored state of an object type (as Open does) without
// adding it to the indexer.
func (ix *Indexer) loadType(ctx context.Context, spec objects.TypeSpec) (*typeState, error) {
	ts := &typeState{spec: spec}
	cp, bs, err := loadCheckpoint(ix.db, spec.APIName)
	if err != nil {
		return nil, fmt.Errorf("object type %s: %w", spec.APIName, err)
	}
	keep := map[int]bool{}
	if bs != nil {
		keep[bs.Generation] = true
	}
	if cp != nil {
		keep[cp.Generation] = true
	}
	if err := ix.dropGenerations(spec.APIName, func(n int) bool { return !keep[n] }); err != nil {
		return nil, err
	}
	if cp != nil {
		g, err := ix.openGeneration(ctx, spec.APIName, cp.Generation, cp.Type, ix.keepsIndex(&spec))
		if err != nil {
			return nil, err // named by rebuildIndex
		}
		ts.cp, ts.gen = cp, g
	}
	ix.openReconcile(ctx, &spec, cp)
	return ts, nil
}

// closeDetached closes the generations of removed object types. The caller
// holds ix.mu.
func (ix *Indexer) closeDetached() []error {
	var errs []error
	for _, ts := range ix.rl.detached {
		ts.mu.Lock()
		if ts.gen != nil {
			errs = append(errs, ts.gen.close())
			ts.gen = nil
		}
		ts.mu.Unlock()
	}
	return errs
}

// CheckReload checks a new config against the current one without changing
// anything and returns the change Reload would make, or an error wrapping
// ErrInvalidConfig.
func (ix *Indexer) CheckReload(ctx context.Context, cfg *config.Config) (*ConfigChange, error) {
	ch, _, err := ix.prepareReload(ctx, cfg)
	return ch, err
}

// prepareReload checks a new config against the current one without
// changing anything. It returns the change and the names of the catalogs
// whose config changed or that were removed.
func (ix *Indexer) prepareReload(ctx context.Context, cfg *config.Config) (*ConfigChange, map[string]bool, error) {
	if cfg == nil {
		return nil, nil, fmt.Errorf("%w: no config", ErrInvalidConfig)
	}
	if err := cfg.Validate(); err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	old := ix.Config()
	if a, b := old.Path(old.DataDir), cfg.Path(cfg.DataDir); a != b {
		return nil, nil, fmt.Errorf("%w: %w", ErrInvalidConfig, &objects.FieldError{Field: "dataDir",
			Msg: fmt.Sprintf("changed from %s to %s; a new data directory needs a restart", a, b)})
	}
	// The indexer's backend clients are made at Open.
	if !reflect.DeepEqual(old.Backends, cfg.Backends) {
		return nil, nil, fmt.Errorf("%w: %w", ErrInvalidConfig, &objects.FieldError{Field: "backends",
			Msg: "changed; new backends need a restart"})
	}
	cats := map[string]bool{}
	for name := range old.Catalogs {
		nc, ok := cfg.Catalogs[name]
		if !ok || !maps.Equal(old.Catalogs[name].Props(old.Dir), nc.Props(cfg.Dir)) {
			cats[name] = true
		}
	}
	ch := &ConfigChange{}
	ix.mu.RLock()
	seen := map[string]bool{}
	indexed := cfg.IndexedTypes()
	for _, spec := range indexed {
		seen[spec.APIName] = true
		ts, ok := ix.types[spec.APIName]
		ref, _ := config.ParseTableRef(spec.Table) // cfg is valid
		catName := ref.Catalog
		switch {
		case !ok:
			ch.Added = append(ch.Added, spec.APIName)
		case !sameIndexing(ts.spec, spec) || cats[catName]:
			ch.Changed = append(ch.Changed, spec.APIName)
		default:
			ch.Unchanged = append(ch.Unchanged, spec.APIName)
		}
	}
	for _, name := range ix.order {
		if !seen[name] {
			ch.Removed = append(ch.Removed, name)
		}
	}
	ix.mu.RUnlock()

	// Load the tables of added and changed types through the new config
	// and check their mappings against the current schemas.
	load, closeCats := ix.reloadLoader(cfg, cats)
	defer closeCats()
	var errs []error
	for i, spec := range indexed {
		if !slices.Contains(ch.Added, spec.APIName) && !slices.Contains(ch.Changed, spec.APIName) {
			continue
		}
		if err := ix.sameKeepsIndex(cfg, spec, i); err != nil {
			errs = append(errs, err)
			continue
		}
		field := spec.APIName // a link table
		if i < len(cfg.ObjectTypes) {
			field = fmt.Sprintf("objectTypes[%d]", i)
		}
		tbl, err := load(ctx, spec.Table)
		if err != nil {
			errs = append(errs, &objects.FieldError{Field: field + ".table", Msg: cfg.Explain(spec.Table, err).Error()})
			continue
		}
		if _, _, err := resolve(&spec, tbl, tbl.CurrentSnapshot()); err != nil {
			errs = append(errs, &objects.FieldError{Field: field, Msg: err.Error()})
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	return ch, cats, nil
}

// sameKeepsIndex refuses a reload that moves a served object type (the
// i-th of cfg's indexed types) in or out of a backend that keeps no
// embedded index: its generation holds an index or not, from its open
// on, and a restart opens it the other way (lean.go).
func (ix *Indexer) sameKeepsIndex(cfg *config.Config, spec objects.TypeSpec, i int) error {
	ix.mu.RLock()
	ts, ok := ix.types[spec.APIName]
	ix.mu.RUnlock()
	if !ok || i >= len(cfg.ObjectTypes) {
		return nil
	}
	was, is := keepsIndexIn(ix.Config(), &ts.spec), keepsIndexIn(cfg, &spec)
	if was == is {
		return nil
	}
	return &objects.FieldError{Field: fmt.Sprintf("objectTypes[%d].backend", i),
		Msg: fmt.Sprintf("moves %s from a type that keeps the embedded index to one that does not, or back (embeddedIndex): that needs a restart", spec.APIName)}
}

// reloadLoader loads tables as the new config would: through the cached
// catalogs when their config is unchanged, else through catalogs opened for
// the check and closed by the returned function.
func (ix *Indexer) reloadLoader(cfg *config.Config, changed map[string]bool) (TableLoader, func()) {
	if ix.opts.LoadTable != nil {
		return ix.opts.LoadTable, func() {}
	}
	opened := map[string]catalog.Catalog{}
	load := func(ctx context.Context, ref string) (*table.Table, error) {
		r, err := config.ParseTableRef(ref)
		if err != nil {
			return nil, err
		}
		catName := r.Catalog
		var cat catalog.Catalog
		if _, ok := ix.Config().Catalogs[catName]; ok && !changed[catName] {
			c, err := ix.catalog(ctx, catName)
			if err != nil {
				return nil, err
			}
			cat = c
		} else if c, ok := opened[catName]; ok {
			cat = c
		} else {
			c, err := catalogs.OpenConfigured(ctx, cfg, catName)
			if err != nil {
				return nil, err
			}
			opened[catName], cat = c, c
		}
		return catalogs.LoadTable(ctx, cat, r)
	}
	return load, func() {
		for _, c := range opened {
			if cl, ok := c.(interface{ Close() error }); ok {
				_ = cl.Close()
			}
		}
	}
}

// sameIndexing reports whether two specs of a type index the same way:
// what it implements changes only how the API reads it.
func sameIndexing(a, b objects.TypeSpec) bool {
	a.Implements, b.Implements = nil, nil
	return reflect.DeepEqual(a, b)
}
