package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestMain_demo runs the demo twice in a temporary directory (with fewer
// customers than the default, to keep the full build short) and checks
// what it prints: the first run generates, builds fully, changes the
// tables and builds incrementally with the merge-on-read refusal; the
// second reuses everything and shows the recovery after compaction.
func TestMain_demo(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "demo")
	match := func(t *testing.T, out string, res ...string) [][]string {
		t.Helper()
		var all [][]string
		for _, re := range res {
			m := regexp.MustCompile(re).FindStringSubmatch(out)
			if m == nil {
				t.Errorf("output does not match %s", re)
				continue
			}
			all = append(all, m)
		}
		if t.Failed() {
			t.Logf("output:\n%s", out)
		}
		return all
	}

	t.Run("first run", func(t *testing.T) {
		code, out, errOut := run("demo", "--dir", dir, "--customers", "3000")
		if code != exitOK {
			t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
		}
		m := match(t, out,
			`(?m)^  Customer\s+demo\.sales\.customers\s+3000 rows in \d+ data files? \(generated\)$`,
			`(?m)^  OrderLine\s+demo\.sales\.order_lines\s+44807 rows in \d+ data files? \(generated\)$`,
			`(?m)^  Aircraft\s+demo\.fleet\.aircraft\s+600 rows in 1 data file \(generated\)$`,
			`(?m)^  config: `+regexp.QuoteMeta(filepath.Join(dir, "ontology.yaml"))+`$`,
			// First build: full.
			`(?m)^Customer\s+full\s+0\s+\d+\s+\d+\s+\d+\s+3000\s+3000\s+0\s+0\s+\d+\s+ok$`,
			`(?m)^OrderLine\s+full\s+0\s+\d+\s+\d+\s+\d+\s+44807\s+44807\s+0\s+0\s+\d+\s+ok$`,
			`(?m)^Aircraft\s+full\s+0\s+\d+\s+1\s+\d+\s+600\s+600\s+0\s+0\s+\d+\s+ok$`,
			// The changes.
			`(?m)^  Customer: copy-on-write update of (\d+) \(city (.+) -> (.+)\)$`,
			`(?m)^  OrderLine: copy-on-write delete of (\d+,\d+)$`,
			`(?m)^  Aircraft: merge-on-read delete of (N\d{3}[A-Z]{2}) \(writes a position-delete file\)$`,
			`(?m)^      snapshot \d+: 0 data files added, 0 removed, 1 delete file added$`,
			// Second build: incremental, one upsert, one delete; the refusal.
			`(?m)^Customer\s+incremental\s+\d+\s+\d+\s+2\s+\d+\s+\d+\s+1\s+0\s+0\s+\d+\s+ok$`,
			`(?m)^OrderLine\s+incremental\s+\d+\s+\d+\s+1\s+\d+\s+\d+\s+0\s+1\s+0\s+\d+\s+ok$`,
			`(?m)^Aircraft\s+incremental\s+\d+\s+\d+\s+0\s+0\s+0\s+0\s+0\s+0\s+\d+\s+MERGE_ON_READ$`,
			`(?m)^Aircraft: object type Aircraft: table demo\.fleet\.aircraft snapshot \d+ \(delete\) has live merge-on-read delete files \(1 position-delete file`,
			// The index.
			`(?m)^  OrderLine (\d+,\d+): not in the index any more`,
			`(?m)^  Aircraft still serves its last good state: 600 objects at snapshot \d+ \(generation 1\)\.$`,
			`(?m)^  indexer check: Aircraft fail \(position deletes 1, equality deletes 0, deletion vectors 0\)$`,
		)
		if t.Failed() {
			return
		}
		id, newCity := m[7][1], m[7][3]
		if m[8][1] != m[15][1] {
			t.Errorf("deleted %s, reported %s", m[8][1], m[15][1])
		}
		match(t, out, `(?m)^  Customer `+id+`: \{.*"city":"`+regexp.QuoteMeta(newCity)+`".*"customerId":`+id+`[,}]`)
		if errOut != "" {
			t.Errorf("stderr:\n%s", errOut)
		}
	})

	t.Run("second run", func(t *testing.T) {
		code, out, errOut := run("demo", "--dir", dir)
		if code != exitOK {
			t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
		}
		match(t, out,
			`(?m)^  Customer\s+demo\.sales\.customers\s+3000 rows in \d+ data files? \(reused\)$`,
			`(?m)^  OrderLine\s+demo\.sales\.order_lines\s+44806 rows in \d+ data files? \(reused\)$`,
			// The index is reused: nothing to build but the blocked type.
			`(?m)^Customer\s+none\s+(\d+)\s+(\d+)\s+0\s+0\s+0\s+0\s+0\s+0\s+\d+\s+ok$`,
			`(?m)^OrderLine\s+none\s+`,
			`(?m)^Aircraft\s+incremental\s+\d+\s+\d+\s+0\s+0\s+0\s+0\s+0\s+0\s+\d+\s+MERGE_ON_READ$`,
			`(?m)^  Aircraft: compaction \(removes 1 delete file\)$`,
			`(?m)^Customer\s+incremental\s+\d+\s+\d+\s+2\s+\d+\s+\d+\s+1\s+0\s+0\s+\d+\s+ok$`,
			`(?m)^OrderLine\s+incremental\s+\d+\s+\d+\s+1\s+\d+\s+\d+\s+0\s+1\s+0\s+\d+\s+ok$`,
			`(?m)^Aircraft\s+incremental\s+\d+\s+\d+\s+1\s+\d+\s+599\s+0\s+1\s+0\s+\d+\s+ok$`,
			`(?m)^  Aircraft is up to date again: 599 objects at snapshot \d+\.$`,
			`(?m)^  indexer check: Aircraft warn \(position deletes 0, equality deletes 0, deletion vectors 0\)$`,
		)
		if strings.Contains(out, "(generated)") {
			t.Error("the second run generated tables")
		}
		// The index was reused, not rebuilt: the data dir holds generation 1 only.
		for _, name := range []string{"Customer", "OrderLine", "Aircraft"} {
			if m, _ := filepath.Glob(filepath.Join(dir, "index", "types", name, "gen-*")); len(m) != 1 || filepath.Base(m[0]) != "gen-1" {
				t.Errorf("%s generations: %v", name, m)
			}
		}
	})

	t.Run("usage", func(t *testing.T) {
		code, _, errOut := run("demo", "--customers", "0")
		if code != exitUsage || !strings.Contains(errOut, "--customers") {
			t.Fatalf("exit %d: %s", code, errOut)
		}
	})
}
