package main

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/daemon"
	"github.com/ontoindex/ontoindex/internal/testkit/daemontest"
	"github.com/ontoindex/ontoindex/internal/testkit/peopletest"
)

// servedState is what a client reads of People: the count, a sorted
// search and a get by key.
type servedState struct {
	count  float64
	search []any
	get    map[string]any
}

func readServed(tb testing.TB, p *serveProc) servedState {
	tb.Helper()
	return servedState{
		count: p.count(tb, "People"),
		search: p.ok(tb, http.MethodPost, "/api/v2/ontologies/serve/objects/People/search",
			`{"where":{"type":"eq","field":"city","value":"Oslo"},"orderBy":{"fields":[{"field":"name","direction":"desc"}]},"pageSize":25}`)["data"].([]any),
		get: p.ok(tb, http.MethodGet, "/api/v2/ontologies/serve/objects/People/42", ""),
	}
}

// TestServe_damagedIndexFile damages the index file of a real `indexer
// serve`'s generation and takes the warehouse away while it restarts: the
// server logs the damage with the file, rebuilds the index from state.db
// and serves exactly what it served before, while its daemon reports the
// table out of reach. When the warehouse is back, the type is up to date
// again without anyone doing anything.
func TestServe_damagedIndexFile(t *testing.T) {
	sw := mustServeWarehouse(t, 4, 500)
	sw.config(t, peopletest.PeopleType, "")
	people := sw.tables[peopletest.People]
	p := startServe(t, sw.cfgPath)
	p.waitStatus(t, "People", "built", daemontest.UpToDate(people))
	before := readServed(t, p)
	p.stop(t) // writes the index file

	file := filepath.Join(sw.dir, "data", "types", "People", "gen-1", "index.snap")
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	raw[len(raw)/2] ^= 0x04 // a bit of a column
	mustFile(t, file, string(raw))
	warehouse := filepath.Join(sw.dir, "warehouse")
	if err := os.Rename(warehouse, warehouse+".away"); err != nil {
		t.Fatal(err)
	}

	p = startServe(t, sw.cfgPath)
	p.waitOutput(t, regexp.MustCompile(`rebuilding the index from the store.*`+regexp.QuoteMeta(file)+`.*index file is corrupt`))
	if code, body := p.do(t, http.MethodGet, "/readyz", "", ""); code != http.StatusOK {
		t.Fatalf("readyz: %d %s", code, body)
	}
	st := p.waitStatus(t, "People", "the table out of reach", func(st daemon.TypeStatus) bool {
		return st.LastError != nil && st.LastError.Code == indexer.CodeTableNotAvailable
	})
	if after := readServed(t, p); !reflect.DeepEqual(after, before) {
		t.Errorf("served after the rebuild: %+v\nbefore: %+v", after, before)
	}
	if st.Objects != 2000 || st.Generation != 1 {
		t.Errorf("status while the table is out of reach: %+v", st)
	}

	if err := os.Rename(warehouse+".away", warehouse); err != nil {
		t.Fatal(err)
	}
	p.waitStatus(t, "People", "up to date again", func(st daemon.TypeStatus) bool {
		return daemontest.UpToDate(people)(st) && st.LastError == nil
	})
	if after := readServed(t, p); !reflect.DeepEqual(after, before) {
		t.Errorf("served with the table back: %+v\nbefore: %+v", after, before)
	}
	p.stop(t)
	if unbuilt := sw.match(t, map[string]string{"People": peopletest.People}); len(unbuilt) > 0 {
		t.Fatalf("not built: %v", unbuilt)
	}
}

// TestServe_damagedStore starts `indexer serve` on damaged state.db files:
// it exits with status 1 and a message that names the file and says what
// to do, instead of a panic or a fault.
func TestServe_damagedStore(t *testing.T) {
	sw := mustServeWarehouse(t, 2, 200)
	sw.config(t, peopletest.PeopleType, "")
	p := startServe(t, sw.cfgPath)
	p.waitStatus(t, "People", "built", daemontest.UpToDate(sw.tables[peopletest.People]))
	p.stop(t)
	db := filepath.Join(sw.dir, "data", "state.db")
	pristine, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name   string
		damage func([]byte) []byte
		why    string
	}{
		{"overwritten", func([]byte) []byte { return []byte("not a database\n") }, "invalid database"},
		{"cut in half", func(b []byte) []byte { return b[:len(b)/2] }, "truncated"},
		{"pages zeroed", func(b []byte) []byte { return append(b[:8192:8192], make([]byte, len(b)-8192)...) }, "reading it failed"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mustFile(t, db, string(tt.damage(bytes.Clone(pristine))))
			cmd := indexerProcess(t, "serve", "--config", sw.cfgPath, "--listen", "127.0.0.1:0")
			out, err := cmd.CombinedOutput()
			if code := cmd.ProcessState.ExitCode(); code != exitFailed {
				t.Fatalf("exit %d (%v), want %d:\n%s", code, err, exitFailed, out)
			}
			for _, s := range []string{db + " is damaged", tt.why, "move that dir aside", "built in full from its table"} {
				if !strings.Contains(string(out), s) {
					t.Errorf("the output does not say %q:\n%s", s, out)
				}
			}
			if strings.Contains(string(out), "panic") || strings.Contains(string(out), "goroutine ") {
				t.Errorf("a crash, not a message:\n%s", out)
			}
		})
	}
}
