package opensearch

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	opensearchgo "github.com/opensearch-project/opensearch-go/v4"
	"github.com/opensearch-project/opensearch-go/v4/opensearchapi"

	"github.com/ontoindex/ontoindex/objects"
)

// Stats count what a Write did with its changes.
type Stats struct {
	Indexed int // documents created or replaced
	Deleted int // documents deleted (or tombstoned: the delete of an absent document)
	// Stale are changes the cluster already held at this version or a
	// newer one: a replayed or an older batch.
	Stale int
	// Retries are the items sent again after the cluster refused them for
	// load.
	Retries int
}

// op is one bulk operation: its action and source lines, and the change.
type op struct {
	change Change
	lines  []byte
}

// Write applies changes to generation gen's index at version (one that
// grows with every batch of the type: doc.go) through the bulk API, in
// requests of at most Options.BulkBytes. It returns nil once the cluster
// acknowledged every change, and stops at the first request that failed.
func (w *Writer) Write(ctx context.Context, gen uint64, version int64, changes []Change) (Stats, error) {
	var st Stats
	if version < 0 {
		return st, fmt.Errorf("opensearch write of %s: version %d is negative", w.typ.APIName, version)
	}
	index := w.Index(gen)
	if err := w.mustExist(ctx, index); err != nil {
		return st, err
	}
	// The last change of a key wins: a second operation on a document
	// in one batch would meet the first's version and be refused.
	last := make(map[string]int, len(changes))
	for i, c := range changes {
		last[string(c.Key)] = i
	}
	var batch []op
	size := 0
	for i, c := range changes {
		if last[string(c.Key)] != i {
			continue
		}
		lines, err := w.encode(c, version)
		if err != nil {
			return st, err
		}
		if len(batch) > 0 && size+len(lines) > w.c.opts.BulkBytes {
			if err := w.send(ctx, index, batch, &st); err != nil {
				return st, err
			}
			batch, size = batch[:0], 0
		}
		batch = append(batch, op{change: c, lines: lines})
		size += len(lines)
	}
	if len(batch) > 0 {
		if err := w.send(ctx, index, batch, &st); err != nil {
			return st, err
		}
	}
	return st, nil
}

// encode returns the bulk lines of a change: its action, and the
// document of an upsert.
func (w *Writer) encode(c Change, version int64) ([]byte, error) {
	id := objects.DocID(c.Key)
	action := "index"
	if c.Object == nil {
		action = "delete"
	}
	line := make([]byte, 0, 256)
	line = append(line, `{"`+action+`":{"_id":`...)
	line = appendString(line, id)
	line = append(line, `,"version":`...)
	line = strconv.AppendInt(line, version, 10)
	line = append(line, `,"version_type":"external"}}`+"\n"...)
	if c.Object == nil {
		return line, nil
	}
	line, err := AppendDocument(line, w.typ, id, c.Object)
	if err != nil {
		return nil, fmt.Errorf("object %s %q: %w", w.typ.APIName, w.typ.KeyString(c.Object), err)
	}
	return append(line, '\n'), nil
}

// send sends one bulk request, and again the items the cluster refused
// for load, with a doubling wait, until none is left or the retries are
// spent.
func (w *Writer) send(ctx context.Context, index string, ops []op, st *Stats) error {
	wait := w.c.opts.RetryWait
	for attempt := 0; ; attempt++ {
		again, err := w.sendOnce(ctx, index, ops, st)
		if err != nil || len(again) == 0 {
			return err
		}
		if attempt == w.c.opts.Retries {
			return fmt.Errorf("opensearch cluster %q: %d writes to %s refused for load after %d retries", w.c.opts.Name, len(again), index, attempt)
		}
		st.Retries += len(again)
		w.c.log.WarnContext(ctx, "opensearch bulk items refused for load, sending them again", "index", index, "items", len(again), "wait", wait)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		wait *= 2
		ops = again
	}
}

// bulkAnswerFields are the parts of a bulk answer Write reads: every
// item keeps its status, so that the items stay in the order of the
// operations. Leaving out the rest (index, id, version, shards, sequence
// numbers) spares the client most of its decoding.
func bulkAnswerFields() []string {
	return []string{"errors", "items.*.status", "items.*.error.type", "items.*.error.reason", "items.*.error.caused_by.type", "items.*.error.caused_by.reason"}
}

// sendOnce sends ops in one bulk request and returns those to send again.
func (w *Writer) sendOnce(ctx context.Context, index string, ops []op, st *Stats) ([]op, error) {
	var body bytes.Buffer
	for _, o := range ops {
		body.Write(o.lines)
	}
	start := time.Now()
	var ans bulkAnswer
	resp, err := opensearchgo.Do(ctx, w.c.client.Client, http.MethodPost, opensearchapi.BulkReq{Index: index, Body: &body,
		Params: opensearchapi.BulkParams{FilterPath: bulkAnswerFields()}}, &ans)
	if err == nil && resp.IsError() {
		err = opensearchgo.ParseError(resp)
	}
	if err != nil {
		var r inspector
		if resp != nil {
			r = inspected{resp}
		}
		return nil, w.c.check(ctx, "bulk write to "+index, r, err)
	}
	if ans.Count != len(ops) {
		return nil, fmt.Errorf("opensearch cluster %q: bulk write to %s answered %d items for %d operations", w.c.opts.Name, index, ans.Count, len(ops))
	}
	if !ans.decoded() {
		for _, o := range ops {
			if o.change.Object == nil {
				st.Deleted++
			} else {
				st.Indexed++
			}
		}
		w.c.log.DebugContext(ctx, "opensearch bulk", "index", index, "items", len(ops), "took", time.Since(start))
		return nil, nil
	}
	var again []op
	var rejected *RejectedError
	var unavailable *UnavailableError
	for i, item := range ans.Items {
		for action, r := range item {
			switch {
			case r.Status == 200 || r.Status == 201:
				if action == "delete" {
					st.Deleted++
				} else {
					st.Indexed++
				}
			case r.Status == 404 && action == "delete":
				st.Deleted++ // absent already; the tombstone holds the version
			case r.Status == 409 && r.Error != nil && r.Error.Type == "version_conflict_engine_exception":
				st.Stale++
			case r.Status == 429:
				again = append(again, ops[i])
			case r.Status == 503:
				// The cluster waited the bulk's timeout for a shard's
				// primary: the cluster's trouble, not the document's.
				if unavailable == nil {
					unavailable = &UnavailableError{Cluster: w.c.opts.Name, Index: index, Reason: itemReason(r)}
				}
				unavailable.Items++
			default:
				if rejected != nil {
					rejected.More++
					continue
				}
				rejected = w.rejected(index, ops[i].change, r)
			}
		}
	}
	w.c.log.DebugContext(ctx, "opensearch bulk", "index", index, "items", len(ops), "took", time.Since(start), "again", len(again))
	if rejected != nil {
		return nil, rejected
	}
	if unavailable != nil {
		return nil, unavailable
	}
	return again, nil
}

// rejected is the error of an item the cluster refused.
func (w *Writer) rejected(index string, c Change, r opensearchapi.BulkRespItem) *RejectedError {
	e := &RejectedError{Cluster: w.c.opts.Name, Index: index, Type: w.typ.APIName, Key: w.keyString(c), Reason: itemReason(r)}
	if r.Error != nil {
		e.Property = errorProperty(r.Error.Reason, r.Error.Cause.Reason)
	}
	return e
}

// itemReason is the cluster's error of a bulk item: its type, then its
// reason and cause.
func itemReason(r opensearchapi.BulkRespItem) string {
	if r.Error == nil {
		return fmt.Sprintf("status %d", r.Status)
	}
	reason := r.Error.Type + ": " + r.Error.Reason
	if r.Error.Cause.Reason != "" {
		reason += " (" + r.Error.Cause.Type + ": " + r.Error.Cause.Reason + ")"
	}
	return reason
}

// keyString is the primary key of a change as users address it.
func (w *Writer) keyString(c Change) string {
	if c.Object != nil {
		return w.typ.KeyString(c.Object)
	}
	values, err := objects.DecodeKey(c.Key)
	if err != nil {
		return objects.DocID(c.Key)
	}
	parts := make([]string, len(values))
	for i, v := range values {
		parts[i] = objects.TextOf(v)
	}
	return strings.Join(parts, ",")
}
