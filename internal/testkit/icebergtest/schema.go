package icebergtest

import (
	"context"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// UpdateSchema applies schema changes in one commit.
func (t *Table) UpdateSchema(ctx context.Context, fn func(u *table.UpdateSchema)) error {
	return t.Commit(ctx, func(tx *table.Transaction) error {
		u := tx.UpdateSchema(true, false)
		fn(u)
		return u.Commit()
	})
}

// AddColumn adds an optional top-level column.
func (t *Table) AddColumn(ctx context.Context, name string, typ iceberg.Type) error {
	return t.UpdateSchema(ctx, func(u *table.UpdateSchema) { u.AddColumn([]string{name}, typ, "", false, nil) })
}

// DropColumn drops a top-level column.
func (t *Table) DropColumn(ctx context.Context, name string) error {
	return t.UpdateSchema(ctx, func(u *table.UpdateSchema) { u.DeleteColumn([]string{name}) })
}

// PromoteColumn widens a column's type (int to long, float to double,
// decimal precision).
func (t *Table) PromoteColumn(ctx context.Context, name string, typ iceberg.Type) error {
	return t.UpdateSchema(ctx, func(u *table.UpdateSchema) {
		u.UpdateColumn([]string{name}, table.ColumnUpdate{FieldType: iceberg.Optional[iceberg.Type]{Valid: true, Val: typ}})
	})
}
