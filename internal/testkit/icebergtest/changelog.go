package icebergtest

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
	"github.com/ontoindex/ontoindex/internal/icebergwrite"
)

// ErrNoOp reports a maintenance operation that found nothing to do.
var ErrNoOp = errors.New("nothing to do")

// CreatePartitionedTable creates ns.name partitioned by the identity of the
// given columns, in order.
func (w *Warehouse) CreatePartitionedTable(ctx context.Context, ident string, sc *iceberg.Schema, columns []string, props iceberg.Properties) (*Table, error) {
	var opts []iceberg.PartitionOption
	for _, c := range columns {
		opts = append(opts, iceberg.AddPartitionFieldByName(c, c, iceberg.IdentityTransform{}, sc, nil))
	}
	spec, err := iceberg.NewPartitionSpecOpts(opts...)
	if err != nil {
		return nil, fmt.Errorf("partition spec %v: %w", columns, err)
	}
	t, err := icebergwrite.CreateTable(ctx, w.Catalog, ident, sc, catalog.WithPartitionSpec(&spec), catalog.WithProperties(props))
	if err != nil {
		return nil, err
	}
	return &Table{W: w, Ident: catalog.ToIdentifier(strings.Split(ident, ".")...), T: t}, nil
}

// RewriteManifests rewrites the data manifests of the current snapshot into
// new ones: a replace snapshot that changes no rows.
func (t *Table) RewriteManifests(ctx context.Context) error {
	tx := t.T.NewTransaction()
	res, err := tx.RewriteManifests(ctx)
	if err != nil {
		return fmt.Errorf("rewrite manifests: %w", err)
	}
	if res.IsNoOp() {
		return fmt.Errorf("rewrite manifests: %w (%s)", ErrNoOp, res.NoOpReason)
	}
	nt, err := tx.Commit(ctx)
	if err != nil {
		return fmt.Errorf("rewrite manifests: %w", err)
	}
	t.T = nt
	return nil
}

// Snapshot returns the current snapshot id, 0 when there is none.
func (t *Table) Snapshot() int64 {
	if s := t.T.CurrentSnapshot(); s != nil {
		return s.SnapshotID
	}
	return 0
}

// Operation returns the operation of a snapshot, "" when it is unknown.
func (t *Table) Operation(id int64) table.Operation {
	s := t.T.SnapshotByID(id)
	if s == nil || s.Summary == nil {
		return ""
	}
	return s.Summary.Operation
}
