package indexer

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/ontoindex/ontoindex/indexer/backend/opensearch"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/objects"
)

// The search backends of an Indexer: one client per configured backend,
// made at Open and closed at Close. A type that names a backend keeps its
// embedded generation as every type does (store and in-memory index:
// gets, subscriptions, derived properties, vectors and held snapshots
// read it), and its builds send the same changes to the backend, which
// answers the type's searches and aggregations (backend_read.go); with
// the backend's embeddedIndex none, the generation keeps the store alone
// (lean.go).

// openBackends makes a client of every backend of cfg.
func openBackends(cfg *config.Config, ix *Indexer) (map[string]*opensearch.Cluster, error) {
	out := map[string]*opensearch.Cluster{}
	for _, name := range slices.Sorted(maps.Keys(cfg.Backends)) {
		o, err := opensearch.OptionsFrom(cfg, name)
		if err != nil {
			closeBackends(out)
			return nil, err
		}
		c, err := opensearch.New(o, ix.log)
		if err != nil {
			closeBackends(out)
			return nil, err
		}
		out[name] = c
	}
	return out, nil
}

func closeBackends(clusters map[string]*opensearch.Cluster) []error {
	var errs []error
	for _, c := range clusters {
		errs = append(errs, c.Close())
	}
	return errs
}

// cluster is the backend of an object type; nil for the embedded index.
func (ix *Indexer) cluster(spec *objects.TypeSpec) *opensearch.Cluster {
	if spec.Backend == "" {
		return nil
	}
	return ix.clusters[spec.Backend]
}

// reconcileBackend makes the backend's alias of an object type point at
// the generation of its checkpoint cp, which a crash between a full
// build's Publish and its commit leaves pointing at the build's. full is
// true when the checkpoint's generation is not in the backend (the
// backend was named later, or lost the index): only a full build puts it
// there.
func (ix *Indexer) reconcileBackend(ctx context.Context, c *opensearch.Cluster, cp *Checkpoint) (full bool, err error) {
	w := c.Writer(cp.Type)
	gen := uint64(cp.Generation)
	published, ok, err := w.Published(ctx)
	if err != nil {
		return false, err
	}
	if ok && published == gen {
		return false, nil
	}
	exists, err := w.Exists(ctx, gen)
	if err != nil || !exists {
		return !exists, err
	}
	ix.log.WarnContext(ctx, "backend alias behind the checkpoint: publishing its generation", "objectType", cp.Type.APIName,
		"backend", c.Name(), "generation", gen, "published", published, "hadAlias", ok)
	return false, w.Publish(ctx, gen)
}

// openReconcile reconciles a type's backend as the indexer opens it. A
// backend that cannot be reached does not keep the indexer from opening:
// the type's next build reconciles again, and fails until it can.
func (ix *Indexer) openReconcile(ctx context.Context, spec *objects.TypeSpec, cp *Checkpoint) {
	c := ix.cluster(spec)
	if c == nil || cp == nil {
		return
	}
	if _, err := ix.reconcileBackend(ctx, c, cp); err != nil {
		ix.log.WarnContext(ctx, "backend not reconciled at open", "objectType", spec.APIName, "backend", c.Name(), "error", err)
	}
}

// reconcile reconciles the backend of the job's type before it plans,
// and makes the build full (backendFull, the reason) when the backend
// misses the checkpoint's generation. An unreachable backend fails the
// build: its checkpoint stays.
func (j *buildJob) reconcile(ctx context.Context) error {
	c := j.ix.cluster(&j.ts.spec)
	j.ts.mu.RLock()
	cp := j.ts.cp
	j.ts.mu.RUnlock()
	if c == nil || cp == nil {
		return nil
	}
	if cp.Backend != j.ts.spec.Backend {
		// The backend missed the builds of the checkpoint's generation.
		j.backendFull = fmt.Sprintf("generation %d was not built into backend %s", cp.Generation, c.Name())
		return nil
	}
	st := &j.ts.backend
	full, err := j.ix.reconcileBackend(ctx, c, cp)
	if err != nil {
		err = fmt.Errorf("object type %s: backend %s: %w", j.name(), c.Name(), err)
		st.failed(err)
		return err
	}
	st.reached()
	if full {
		j.backendFull = fmt.Sprintf("backend %s does not hold generation %d", c.Name(), cp.Generation)
	}
	return nil
}
