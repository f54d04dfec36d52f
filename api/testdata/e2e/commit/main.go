// Command commit is the writer of the subscription end-to-end test
// (osdk-subscribe.test.mjs): each run commits one copy-on-write change to
// a table of the demo warehouse the seed wrote, through iceberg-go
// (internal/testkit/icebergtest), as another process writing to the
// lake would.
//
//	commit -warehouse DIR [-table demo.customers] [-key customer_id] insert '[{row}, ...]'
//	commit -warehouse DIR ... update '[{key and the columns to change}, ...]'
//	commit -warehouse DIR ... delete '[key, ...]'
//
// insert appends the rows; update rewrites the files holding the rows of
// those keys with their new values (an overwrite by key); delete rewrites
// them without the rows (write.delete.mode is copy-on-write by default).
// Each is one snapshot. It prints {"snapshot": id, "rows": [...]}: the new
// snapshot's id and the full rows it wrote (none for a delete).
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/apache/iceberg-go"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
)

func main() {
	warehouse := flag.String("warehouse", "", "directory of the hadoop warehouse the seed wrote")
	table := flag.String("table", "demo.customers", "table to commit to")
	key := flag.String("key", "customer_id", "column that identifies a row")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: commit -warehouse DIR [-table T] [-key COLUMN] insert|update|delete JSON")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *warehouse == "" || flag.NArg() != 2 {
		flag.Usage()
		os.Exit(2)
	}
	out, err := run(context.Background(), change{warehouse: *warehouse, table: *table, key: *key, op: flag.Arg(0), arg: flag.Arg(1)})
	if err != nil {
		fmt.Fprintln(os.Stderr, "commit:", err)
		os.Exit(1)
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, "commit:", err)
		os.Exit(1)
	}
}

// change is one commit to make.
type change struct {
	warehouse, table, key string
	op                    string // insert, update or delete
	arg                   string // its JSON argument
}

// result is what a commit printed.
type result struct {
	Snapshot int64             `json:"snapshot"`
	Rows     []icebergtest.Row `json:"rows"`
}

func run(ctx context.Context, c change) (result, error) {
	w, err := icebergtest.NewWarehouse(c.warehouse)
	if err != nil {
		return result{}, err
	}
	defer w.Close()
	t, err := w.LoadTable(ctx, c.table)
	if err != nil {
		return result{}, fmt.Errorf("load %s: %w", c.table, err)
	}
	var rows []icebergtest.Row
	switch c.op {
	case "insert":
		if err := decode(c.arg, &rows); err != nil {
			return result{}, err
		}
		if err := t.Append(ctx, rows); err != nil {
			return result{}, err
		}
	case "update":
		var changes []icebergtest.Row
		if err := decode(c.arg, &changes); err != nil {
			return result{}, err
		}
		if rows, err = merged(ctx, t, c.key, changes); err != nil {
			return result{}, err
		}
		filter, err := keysIn(c.key, keysOf(c.key, changes))
		if err != nil {
			return result{}, err
		}
		if err := t.Overwrite(ctx, filter, rows); err != nil {
			return result{}, err
		}
	case "delete":
		var keys []any
		if err := decode(c.arg, &keys); err != nil {
			return result{}, err
		}
		filter, err := keysIn(c.key, keys)
		if err != nil {
			return result{}, err
		}
		if err := t.Delete(ctx, filter); err != nil {
			return result{}, err
		}
	default:
		return result{}, fmt.Errorf("unknown change %q: insert, update or delete", c.op)
	}
	if rows == nil {
		rows = []icebergtest.Row{}
	}
	return result{Snapshot: t.Snapshot(), Rows: rows}, nil
}

// decode reads a JSON argument, numbers as json.Number so that longs keep
// every digit.
func decode(arg string, v any) error {
	dec := json.NewDecoder(bytes.NewReader([]byte(arg)))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("read %q: %w", arg, err)
	}
	return nil
}

// merged returns the current rows of the changed keys with the changes
// applied: an overwrite replaces whole rows.
func merged(ctx context.Context, t *icebergtest.Table, key string, changes []icebergtest.Row) ([]icebergtest.Row, error) {
	current, err := t.ReadRows(ctx, 0)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", t.Ident, err)
	}
	byKey := map[string]icebergtest.Row{}
	for _, r := range current {
		byKey[fmt.Sprint(r[key])] = r
	}
	var rows []icebergtest.Row
	for _, ch := range changes {
		r, ok := byKey[fmt.Sprint(ch[key])]
		if !ok {
			return nil, fmt.Errorf("update: no row with %s = %v", key, ch[key])
		}
		for col, v := range ch {
			r[col] = v
		}
		rows = append(rows, r)
	}
	return rows, nil
}

func keysOf(key string, rows []icebergtest.Row) []any {
	var keys []any
	for _, r := range rows {
		keys = append(keys, r[key])
	}
	return keys
}

// keysIn is the filter of the rows whose key is one of keys: strings, or
// integers (JSON numbers).
func keysIn(key string, keys []any) (iceberg.BooleanExpression, error) {
	if len(keys) == 0 {
		return nil, errors.New("no keys")
	}
	var strs []string
	var ints []int64
	for _, k := range keys {
		switch k := k.(type) {
		case string:
			strs = append(strs, k)
		case json.Number:
			n, err := k.Int64()
			if err != nil {
				return nil, fmt.Errorf("key %v: %w", k, err)
			}
			ints = append(ints, n)
		default:
			return nil, fmt.Errorf("key %v: a string or an integer", k)
		}
	}
	switch {
	case len(ints) == 0:
		return iceberg.IsIn(iceberg.Reference(key), strs...), nil
	case len(strs) == 0:
		return iceberg.IsIn(iceberg.Reference(key), ints...), nil
	}
	return nil, fmt.Errorf("keys %v: all strings or all integers", keys)
}
