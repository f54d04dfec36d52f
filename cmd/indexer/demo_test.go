package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
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
		code, out, errOut := run("demo", "--once", "--dir", dir, "--customers", "3000")
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
			`(?m)^object type Aircraft: table demo\.fleet\.aircraft snapshot \d+ \(delete\) has live merge-on-read delete files \(1 position-delete file`,
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
		code, out, errOut := run("demo", "--once", "--dir", dir)
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

// curlCommand is one of the demo's ready-to-paste curl commands.
var curlCommand = regexp.MustCompile(`(?m)^  curl -s (?:-H 'Content-Type: application/json' -d '([^']*)' )?(http://\S+)$`)

// TestMain_demoServe runs the demo as `go run ./cmd/indexer demo` does
// (serving, with the demo writer), sends the curl commands it prints, and
// waits until the writer's commits are indexed; the second run reuses the
// warehouse and the index.
func TestMain_demoServe(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "demo")
	start := func(t *testing.T, args ...string) (stdout, stderr *syncBuffer, stop func() int) {
		t.Helper()
		ctx, cancel := context.WithCancel(context.Background())
		stdout, stderr = &syncBuffer{}, &syncBuffer{}
		done := make(chan int, 1)
		go func() {
			done <- Main(ctx, append([]string{"demo", "--dir", dir, "--listen", "127.0.0.1:0"}, args...), &Env{Stdout: stdout, Stderr: stderr})
		}()
		stopped := false
		stop = func() int {
			t.Helper()
			cancel()
			if stopped {
				return exitOK
			}
			stopped = true
			select {
			case code := <-done:
				return code
			case <-time.After(waitLong):
				t.Fatalf("the demo did not stop:\n%s%s", stdout.String(), stderr.String())
				return 0
			}
		}
		t.Cleanup(func() {
			stop()
			if t.Failed() {
				t.Logf("stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
			}
		})
		return stdout, stderr, stop
	}
	waitFor := func(t *testing.T, out *syncBuffer, re string) []string {
		t.Helper()
		rx := regexp.MustCompile(re)
		deadline := time.Now().Add(waitLong)
		for {
			if m := rx.FindStringSubmatch(out.String()); m != nil {
				return m
			}
			if time.Now().After(deadline) {
				t.Fatalf("output does not match %s:\n%s", re, out.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	// curls sends the printed curl commands and returns the decoded answers.
	curls := func(t *testing.T, out string) []map[string]any {
		t.Helper()
		var res []map[string]any
		for _, m := range curlCommand.FindAllStringSubmatch(out, -1) {
			method, body := http.MethodGet, m[1]
			if body != "" {
				method = http.MethodPost
			}
			req, err := http.NewRequest(method, m[2], strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			if body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			var v map[string]any
			err = json.NewDecoder(resp.Body).Decode(&v)
			resp.Body.Close()
			if err != nil || resp.StatusCode != http.StatusOK {
				t.Fatalf("%s: %d %v %v", m[0], resp.StatusCode, v, err)
			}
			res = append(res, v)
		}
		if len(res) != 4 {
			t.Fatalf("%d curl commands in:\n%s", len(res), out)
		}
		return res
	}

	t.Run("first run", func(t *testing.T) {
		// Seed 1377 gives customer 1 no orders: the link example must
		// find a customer that has some.
		stdout, stderr, stop := start(t, "--customers", "2000", "--seed", "1377", "--every", "100ms")
		waitFor(t, stdout, `(?m)^  generating Customer \(demo\.sales\.customers\) \.\.\.$`)
		waitFor(t, stdout, `(?m)^  Customer\s+demo\.sales\.customers\s+2000 rows in \d+ data files? \(generated\)$`)
		base := waitFor(t, stdout, `(?m)^Serving (http://127\.0\.0\.1:\d+) `)[1]
		waitFor(t, stdout, `(?m)^  status    `+regexp.QuoteMeta(base)+`/api/indexer/v1/status$`)
		waitFor(t, stdout, `(?m)^First builds of .* are running`)
		waitFor(t, stdout, `(?m)^\d\d:\d\d:\d\d indexed  Customer: full build to snapshot \d+ \(generation 1\): 2000 upserts`)
		out := waitFor(t, stdout, `(?s)Try:\n.*go run ./cmd/indexer status --url `+regexp.QuoteMeta(base)+`\n`)[0]
		res := curls(t, out)
		search, get, links, status := res[0], res[1], res[2], res[3]
		data, _ := search["data"].([]any)
		if len(data) == 0 || data[0].(map[string]any)["city"] != "Lisbon" || data[0].(map[string]any)["__apiName"] != "Customer" {
			t.Errorf("search: %v", search)
		}
		// The link example follows a customer that has order lines, the
		// customer the get example reads.
		customer := regexp.MustCompile(`(?m)^  curl -s \S+/objects/Customer/(\d+)/links/orderLines$`).FindStringSubmatch(out)
		if customer == nil {
			t.Fatalf("no link example in:\n%s", out)
		}
		if get["__primaryKey"] != customer[1] || get["__apiName"] != "Customer" {
			t.Errorf("get: %v, want customer %s", get, customer[1])
		}
		lines, _ := links["data"].([]any)
		if len(lines) == 0 {
			t.Errorf("links of customer %s: %v", customer[1], links)
		}
		for _, l := range lines {
			if o := l.(map[string]any); o["__apiName"] != "OrderLine" || fmt.Sprint(o["customerId"]) != customer[1] {
				t.Errorf("an order line of customer %s: %v", customer[1], o)
			}
		}
		if sts, _ := status["objectTypes"].([]any); len(sts) != 3 || status["ready"] != true {
			t.Errorf("status: %v", status)
		}
		// The console it names is served there.
		page := waitFor(t, stdout, `(?m)^or open the web console: (\S+)$`)[1]
		resp, err := http.Get(page)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(resp.Header.Get("Content-Type"), "text/html") || !bytes.Contains(body, []byte("<html")) {
			t.Errorf("console %s: %d %s %.100s", page, resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
		// The writer commits; the daemon indexes the commits.
		waitFor(t, stdout, `(?m)^\d\d:\d\d:\d\d commit   (Customer|OrderLine): `)
		waitFor(t, stdout, `(?m)^\d\d:\d\d:\d\d indexed  (Customer|OrderLine): incremental build to snapshot \d+ \(generation 1\): `)
		if code := stop(); code != exitOK {
			t.Fatalf("exit %d", code)
		}
		if !strings.Contains(stderr.String(), "indexer serve: stopped") {
			t.Errorf("stderr:\n%s", stderr.String())
		}
	})

	t.Run("second run", func(t *testing.T) {
		stdout, _, stop := start(t, "--writer=false")
		waitFor(t, stdout, `(?m)^  Customer\s+demo\.sales\.customers\s+2000 rows in \d+ data files? \(reused\)$`)
		out := waitFor(t, stdout, `(?s)Try:\n.*\nThe demo writer is off \(--writer=false\)\.\n`)[0]
		if strings.Contains(out, "First builds") || strings.Contains(out, "(generated)") {
			t.Errorf("the second run built or generated again:\n%s", out)
		}
		if lines, _ := curls(t, out)[2]["data"].([]any); len(lines) == 0 {
			t.Errorf("the link example answers no order lines:\n%s", out)
		}
		if code := stop(); code != exitOK {
			t.Fatalf("exit %d", code)
		}
		// The index was reused, not rebuilt: the data dir holds generation 1 only.
		for _, name := range []string{"Customer", "OrderLine", "Aircraft"} {
			if m, _ := filepath.Glob(filepath.Join(dir, "index", "types", name, "gen-*")); len(m) != 1 || filepath.Base(m[0]) != "gen-1" {
				t.Errorf("%s generations: %v", name, m)
			}
		}
	})
}
