package changelog

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// The modified view is computed from net changes: with identifiers unique
// at both ends, an identifier that exists at both ends with different
// values has its old row among the net DELETEs (it is not at to) and its
// new row among the net INSERTs (it is not at from); an unchanged row has
// neither. So the view is the net INSERTs whose identifier also has a net
// DELETE, and memory grows with the net changes, as in net mode.

// modifiedEntry is the pending net change of one row value and the hash
// of its identifier.
type modifiedEntry struct {
	netEntry
	key rowHash
}

// runModified emits, with the replay's schema, the net INSERT rows whose
// identifier (columns idIdx) also has a net DELETE.
func (c *Changelog) runModified(ctx context.Context, idIdx []int, emit func(arrow.RecordBatch) error) error {
	c.stats = ReplayStats{}
	net := map[rowHash]modifiedEntry{}
	var h hasher
	for _, f := range c.allFiles() {
		if err := ctx.Err(); err != nil {
			return err
		}
		var off int64
		err := c.readFile(ctx, f, func(rec arrow.RecordBatch) error {
			h.bind(rec, idIdx)
			for i := range int(rec.NumRows()) {
				rh := h.row(i)
				e, ok := net[rh]
				ne, pending, cancelled := netStep(e.netEntry, ok, netEntry{deleted: f.deleted, file: int32(f.index), row: off + int64(i), count: 1})
				if cancelled {
					c.stats.CarryOvers++
				}
				switch {
				case !pending:
					delete(net, rh)
				case ok: // the same row value, so the same identifier
					net[rh] = modifiedEntry{netEntry: ne, key: e.key}
				default:
					net[rh] = modifiedEntry{netEntry: ne, key: h.key(i)}
				}
			}
			off += rec.NumRows()
			c.track(len(net))
			return nil
		})
		if err != nil {
			return err
		}
	}
	deleted, inserted := map[rowHash]int32{}, map[rowHash]int32{}
	for _, e := range net {
		if e.deleted {
			deleted[e.key] += e.count
		} else {
			inserted[e.key] += e.count
		}
	}
	picks := map[int32][]pick{}
	for _, e := range net {
		if e.deleted || deleted[e.key] == 0 {
			continue
		}
		if deleted[e.key] > 1 || inserted[e.key] > 1 {
			return fmt.Errorf("table %s: modified rows (%d, %d]: an identifier (%s) is held by more than one row at snapshot %d or %d; the identifier columns must be unique",
				c.name, c.from, c.to, strings.Join(c.columnNames(idIdx), ", "), c.from, c.to)
		}
		picks[e.file] = append(picks[e.file], pick{row: e.row, typ: UpdateAfter, copies: 1})
	}
	clear(net)
	return c.emitPicks(ctx, picks, emit)
}

func (c *Changelog) columnNames(idx []int) []string {
	out := make([]string, len(idx))
	for i, j := range idx {
		out[i] = c.data.Field(j).Name
	}
	return out
}
