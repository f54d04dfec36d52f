// Package icebergwrite writes rows to Iceberg tables with iceberg-go: it
// creates a table and its namespace, builds Arrow record batches in a
// table's schema from rows of Go values, and commits them as an append, a
// copy-on-write overwrite, a delete or a compaction, each returning the
// table the commit made.
//
// It is the one writer of the demo (internal/demo, product code behind
// `indexer demo`), the benchmarks' tables (benchdata, soak, subscribebench)
// and the test kit (testkit/icebergtest wraps it for tests). It holds no
// state: a caller keeps the *table.Table each commit returns.
//
// Rows are given in the table's column order, one Go value per column:
//
//	long           int64, int, int32
//	int            int32, int, int64 (in range)
//	float, double  float32, float64
//	string         string
//	boolean        bool
//	date           time.Time (its UTC day), arrow.Date32
//	timestamp(tz)  time.Time, arrow.Timestamp (in the column's unit)
//	decimal        decimal128.Num or *big.Int, unscaled
//	list           []any or []string of the element's values
//	struct         map[string]any of field name to value (a missing field is null)
//	any column     nil for null (an error in a required column)
//
// A value that does not fit its column is an error naming the row, the
// column and the value, and a commit's error names the table.
package icebergwrite
