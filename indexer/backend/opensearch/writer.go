package opensearch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/opensearch-project/opensearch-go/v4/opensearchapi"

	"github.com/ontoindex/ontoindex/objects"
)

// Change is the new state of one object after a build: the object held
// under its encoded primary key, or a nil Object when it is deleted.
type Change struct {
	Key    []byte
	Object *objects.Object
}

// Writer writes the generations of one object type.
type Writer struct {
	c     *Cluster
	typ   *objects.Type
	alias string

	mu    sync.Mutex
	known map[string]bool // indexes seen to exist, so Write does not ask again
}

// Writer returns the writer of object type t.
func (c *Cluster) Writer(t *objects.Type) *Writer {
	return &Writer{c: c, typ: t, alias: c.opts.IndexPrefix + strings.ToLower(t.APIName), known: map[string]bool{}}
}

// Alias is the name readers use: the published generation's index.
func (w *Writer) Alias() string { return w.alias }

// Index is the name of generation gen's index.
func (w *Writer) Index(gen uint64) string { return w.alias + "-g" + strconv.FormatUint(gen, 10) }

// generation parses an index name of the writer's type.
func (w *Writer) generation(index string) (uint64, bool) {
	s, ok := strings.CutPrefix(index, w.alias+"-g")
	if !ok {
		return 0, false
	}
	g, err := strconv.ParseUint(s, 10, 64)
	return g, err == nil
}

// CreateIndex creates generation gen's index with the type's mapping. An
// index already there (a full build resumed) is kept as it is: a full
// build that starts afresh calls Drop first, since the index of a
// generation number used before (a data dir started again) holds
// versions that would refuse the new writes.
func (w *Writer) CreateIndex(ctx context.Context, gen uint64) error {
	body, err := json.Marshal(IndexBody(w.typ, w.c.opts))
	if err != nil {
		return err
	}
	index := w.Index(gen)
	copies, err := w.startedCopies(ctx)
	if err != nil {
		return err
	}
	resp, err := w.c.client.Indices.Create(ctx, opensearchapi.IndicesCreateReq{Index: index, Body: bytes.NewReader(body),
		Params: opensearchapi.IndicesCreateParams{WaitForActiveShards: strconv.Itoa(copies)}})
	if err != nil && errorType(err) != "resource_already_exists_exception" {
		return w.c.check(ctx, "create index "+index, resp, err)
	}
	if err == nil && !resp.ShardsAcknowledged {
		// A copy could not start in time (a node short of the replicas):
		// the build goes on with the copies there are.
		w.c.log.WarnContext(ctx, "opensearch index created without all its shard copies started", "index", index)
	}
	w.c.log.DebugContext(ctx, "opensearch index created", "index", index, "existed", err != nil)
	w.setKnown(index, true)
	return nil
}

// startedCopies is how many copies of each shard a new index waits for
// (wait_for_active_shards, up to the request's timeout, 30s): every copy
// the cluster's data nodes can hold. A replica still recovering when a
// build's first writes go out is not in sync, and should its primary's
// node go, the shard would have no copy to promote: every write to it
// would wait for that node to return. Copies no node can hold (a
// replica on a one-node cluster) are not waited for.
func (w *Writer) startedCopies(ctx context.Context) (int, error) {
	resp, err := w.c.client.Cluster.Health(ctx, nil)
	if err != nil {
		return 0, w.c.check(ctx, "cluster health", resp, err)
	}
	return max(1, min(w.c.opts.Replicas+1, resp.NumberOfDataNodes)), nil
}

// Drop deletes generation gen's index (an abandoned full build's); a
// missing one is not an error.
func (w *Writer) Drop(ctx context.Context, gen uint64) error {
	return w.drop(ctx, []string{w.Index(gen)})
}

func (w *Writer) drop(ctx context.Context, indexes []string) error {
	if len(indexes) == 0 {
		return nil
	}
	resp, err := w.c.client.Indices.Delete(ctx, opensearchapi.IndicesDeleteReq{Indices: indexes,
		Params: opensearchapi.IndicesDeleteParams{IgnoreUnavailable: new(true)}})
	if err != nil {
		return w.c.check(ctx, "delete indexes "+strings.Join(indexes, ","), resp, err)
	}
	for _, index := range indexes {
		w.setKnown(index, false)
	}
	return nil
}

// Published returns the generation the alias points at; ok is false when
// there is none yet.
func (w *Writer) Published(ctx context.Context) (gen uint64, ok bool, err error) {
	indexes, err := w.aliased(ctx)
	if err != nil || len(indexes) == 0 {
		return 0, false, err
	}
	if len(indexes) > 1 {
		return 0, false, fmt.Errorf("opensearch cluster %q: alias %s points at %d indexes (%s), want one", w.c.opts.Name, w.alias, len(indexes), strings.Join(indexes, ", "))
	}
	gen, ok = w.generation(indexes[0])
	if !ok {
		return 0, false, fmt.Errorf("opensearch cluster %q: alias %s points at %s, which is no generation of %s", w.c.opts.Name, w.alias, indexes[0], w.typ.APIName)
	}
	return gen, true, nil
}

// aliased lists the indexes the alias points at, sorted.
func (w *Writer) aliased(ctx context.Context) ([]string, error) {
	resp, err := w.c.client.Indices.Alias.Get(ctx, opensearchapi.AliasGetReq{Alias: []string{w.alias}})
	if isStatus(resp, err, 404) {
		return nil, nil
	}
	if err != nil {
		return nil, w.c.check(ctx, "get alias "+w.alias, resp, err)
	}
	return slices.Sorted(maps.Keys(resp.GetIndices())), nil
}

// Publish refreshes generation gen's index, points the alias at it in
// one _aliases request, so that readers of the alias see the old generation or the
// new one and never both, then deletes the generations of the type it
// pointed at before. Publishing the published generation again changes
// nothing.
func (w *Writer) Publish(ctx context.Context, gen uint64) error {
	index := w.Index(gen)
	old, err := w.aliased(ctx)
	if err != nil {
		return err
	}
	// The index was created not to refresh (IndexBody): it refreshes
	// now, before any reader can see it, and from now on at the
	// cluster's default interval, so that the incremental writes that
	// follow become searchable.
	settings := strings.NewReader(`{"index":{"refresh_interval":null}}`)
	sresp, err := w.c.client.Indices.Settings.Put(ctx, opensearchapi.SettingsPutReq{Indices: []string{index}, Body: settings})
	if err != nil {
		return w.c.check(ctx, "set the refresh interval of "+index, sresp, err)
	}
	if err := w.Refresh(ctx, gen); err != nil {
		return err
	}
	actions := []any{}
	for _, o := range old {
		if o != index {
			actions = append(actions, map[string]any{"remove": map[string]any{"index": o, "alias": w.alias}})
		}
	}
	actions = append(actions, map[string]any{"add": map[string]any{"index": index, "alias": w.alias}})
	body, err := json.Marshal(map[string]any{"actions": actions})
	if err != nil {
		return err
	}
	resp, err := w.c.client.Aliases(ctx, opensearchapi.AliasesReq{Body: bytes.NewReader(body)})
	if err != nil {
		return w.c.check(ctx, "point alias "+w.alias+" at "+index, resp, err)
	}
	// Only the type's own generations are dropped: an index someone else
	// put behind the alias loses the alias, not its documents.
	old = slices.DeleteFunc(old, func(o string) bool {
		_, ours := w.generation(o)
		return o == index || !ours
	})
	w.c.log.InfoContext(ctx, "opensearch generation published", "type", w.typ.APIName, "alias", w.alias, "index", index, "dropped", old)
	return w.drop(ctx, old)
}

// Refresh makes the writes to generation gen searchable now, rather than
// at the index's next refresh.
func (w *Writer) Refresh(ctx context.Context, gen uint64) error {
	index := w.Index(gen)
	resp, err := w.c.client.Indices.Refresh(ctx, &opensearchapi.IndicesRefreshReq{Index: []string{index}})
	return w.c.check(ctx, "refresh "+index, resp, err)
}

func (w *Writer) setKnown(index string, exists bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if exists {
		w.known[index] = true
	} else {
		delete(w.known, index)
	}
}

// Exists reports whether generation gen's index exists.
func (w *Writer) Exists(ctx context.Context, gen uint64) (bool, error) {
	index := w.Index(gen)
	resp, err := w.c.client.Indices.Exists(ctx, opensearchapi.IndicesExistsReq{Indices: []string{index}})
	if resp != nil && resp.StatusCode == 404 {
		return false, nil
	}
	if err != nil {
		if resp == nil {
			if ctx.Err() != nil {
				return false, ctx.Err()
			}
			return false, &UnreachableError{Cluster: w.c.opts.Name, URLs: w.c.opts.URLs, Err: err}
		}
		return false, fmt.Errorf("opensearch cluster %q: index %s: %w", w.c.opts.Name, index, err)
	}
	return true, nil
}

// mustExist refuses to write to an index that is not there: the bulk API
// would create it with a guessed mapping.
func (w *Writer) mustExist(ctx context.Context, index string) error {
	w.mu.Lock()
	known := w.known[index]
	w.mu.Unlock()
	if known {
		return nil
	}
	gen, _ := w.generation(index)
	ok, err := w.Exists(ctx, gen)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("opensearch cluster %q: index %s does not exist (CreateIndex first)", w.c.opts.Name, index)
	}
	w.setKnown(index, true)
	return nil
}
