//go:build integration_jvm

package sparktest

import (
	"strings"
	"testing"
)

// TestSession_SQL starts a session over a hadoop warehouse, writes an
// Iceberg table and reads it back; a bad statement is Spark's error, and
// the session goes on.
func TestSession_SQL(t *testing.T) {
	s := Must(t, Options{Catalogs: map[string]Catalog{"local": HadoopCatalog(t.TempDir())}})
	if !strings.HasPrefix(s.Version, "4.0") {
		t.Errorf("Spark %s, want %s", s.Version, SparkVersion)
	}
	t.Run("write and read", func(t *testing.T) {
		res := s.MustSQL(t,
			"CREATE TABLE local.ns.t (id BIGINT NOT NULL, name STRING, amount DECIMAL(10,2), at TIMESTAMP) USING iceberg",
			"INSERT INTO local.ns.t VALUES (1, 'a', 1.50, TIMESTAMP '2026-01-02 03:04:05'), (2, NULL, NULL, NULL)",
			"SELECT * FROM local.ns.t ORDER BY id")
		if strings.Join(res.Columns, ",") != "id,name,amount,at" || len(res.Rows) != 2 {
			t.Fatalf("result: %+v", res)
		}
		m := res.Maps()
		if m[0]["id"] != int64(1) || m[0]["name"] != "a" || m[0]["amount"] != "1.50" || m[0]["at"] != "2026-01-02T03:04:05" || m[1]["name"] != nil {
			t.Errorf("rows: %v", m)
		}
	})
	t.Run("error", func(t *testing.T) {
		if _, err := s.SQL(t.Context(), "SELECT * FROM local.ns.missing"); err == nil || !strings.Contains(err.Error(), "missing") {
			t.Errorf("error: %v", err)
		}
		if res := s.MustSQL(t, "SELECT count(*) AS n FROM local.ns.t"); res.Rows[0][0] != int64(2) {
			t.Errorf("after the error: %+v", res)
		}
	})
}
