package icebergwrite

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
)

// CreateTable creates table ident ("namespace.table") in cat with schema
// sc, creating its namespace first when it does not exist. opts are
// iceberg-go's (catalog.WithProperties, catalog.WithPartitionSpec).
func CreateTable(ctx context.Context, cat catalog.Catalog, ident string, sc *iceberg.Schema, opts ...catalog.CreateTableOpt) (*table.Table, error) {
	id := catalog.ToIdentifier(strings.Split(ident, ".")...)
	if len(id) < 2 {
		return nil, fmt.Errorf("create table %s: want namespace.table", ident)
	}
	ns := catalog.NamespaceFromIdent(id)
	exists, err := cat.CheckNamespaceExists(ctx, ns)
	if err != nil {
		return nil, fmt.Errorf("look up namespace %s: %w", strings.Join(ns, "."), err)
	}
	if !exists {
		if err := cat.CreateNamespace(ctx, ns, nil); err != nil {
			return nil, fmt.Errorf("create namespace %s: %w", strings.Join(ns, "."), err)
		}
	}
	tbl, err := cat.CreateTable(ctx, id, sc, opts...)
	if err != nil {
		return nil, fmt.Errorf("create table %s: %w", ident, err)
	}
	return tbl, nil
}
