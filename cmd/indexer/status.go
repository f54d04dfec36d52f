package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/indexer/daemon"
	"github.com/ontoindex/ontoindex/objects"
)

// StatusPath is where `indexer serve` reports status.
const StatusPath = "/api/indexer/v1/status"

func runStatus(ctx context.Context, env *Env, args []string) int {
	fs := newFlags(env, "status", "[--url U] [--type T] [--token TOKEN] [--json]\n\n"+
		"Exit status: 0 when every object type is idle or building, 1 when one is failing\n"+
		"or blocked or the server could not be asked, 2 for usage errors.")
	base := fs.String("url", "", "base `URL` of the indexer serve process (default $INDEXER_URL, else http://127.0.0.1:8080)")
	typ := fs.String("type", "", "report only this object type")
	token := fs.String("token", "", "bearer token (default $INDEXER_TOKEN)")
	asJSON := fs.Bool("json", false, "print the status as JSON")
	timeout := fs.Duration("timeout", 30*time.Second, "how long to wait for the server")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if *base == "" {
		*base = envOr("INDEXER_URL", "http://127.0.0.1:8080")
	}
	if *token == "" {
		*token = os.Getenv("INDEXER_TOKEN")
	}
	u, err := url.Parse(*base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		fmt.Fprintf(env.Stderr, "indexer status: --url %q must be an http(s) URL such as http://127.0.0.1:8080\n", *base)
		return exitUsage
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	sts, raw, err := fetchStatus(ctx, http.DefaultClient, u, *typ, *token)
	if err != nil {
		fmt.Fprintf(env.Stderr, "indexer status: %v\n", err)
		return exitFailed
	}
	if *asJSON {
		var out bytes.Buffer
		if err := json.Indent(&out, raw, "", "  "); err != nil {
			out.Reset()
			out.Write(raw)
		}
		out.WriteByte('\n')
		_, _ = env.Stdout.Write(out.Bytes())
	} else {
		printStatus(env.Stdout, sts, time.Now())
	}
	for _, st := range sts {
		if st.State == daemon.StateFailing || st.State == daemon.StateBlocked {
			return exitFailed
		}
	}
	return exitOK
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// fetchStatus gets the status of every object type (or of one) and returns
// it parsed and as received.
func fetchStatus(ctx context.Context, client *http.Client, base *url.URL, objectType, token string) ([]daemon.TypeStatus, []byte, error) {
	u := base.JoinPath(StatusPath)
	if objectType != "" {
		u = u.JoinPath(objectType)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Accept", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("get %s: %w (is `indexer serve` running?)", u, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, nil, fmt.Errorf("get %s: %w", u, err)
	}
	if resp.StatusCode != http.StatusOK {
		msg := describeHTTPError(resp.Status, raw)
		if resp.StatusCode == http.StatusUnauthorized {
			msg += "; " + authHint(token)
		}
		return nil, raw, fmt.Errorf("get %s: %s", u, msg)
	}
	sts, err := decodeStatus(raw)
	if err != nil {
		return nil, raw, fmt.Errorf("get %s: %w", u, err)
	}
	return sts, raw, nil
}

// decodeStatus reads a status body: a report with objectTypes, a bare
// array, or the status of one object type.
func decodeStatus(raw []byte) ([]daemon.TypeStatus, error) {
	raw = bytes.TrimSpace(raw)
	if bytes.HasPrefix(raw, []byte("[")) {
		var sts []daemon.TypeStatus
		if err := json.Unmarshal(raw, &sts); err != nil {
			return nil, fmt.Errorf("decode status: %w", err)
		}
		return sts, nil
	}
	var probe struct {
		ObjectTypes *[]daemon.TypeStatus `json:"objectTypes"`
		ObjectType  string               `json:"objectType"`
	}
	if err := json.Unmarshal(raw, &probe); err != nil {
		return nil, fmt.Errorf("decode status: %w", err)
	}
	switch {
	case probe.ObjectTypes != nil:
		return *probe.ObjectTypes, nil
	case probe.ObjectType != "":
		var st daemon.TypeStatus
		if err := json.Unmarshal(raw, &st); err != nil {
			return nil, fmt.Errorf("decode status: %w", err)
		}
		return []daemon.TypeStatus{st}, nil
	}
	return nil, errors.New("decode status: the response holds no object types")
}

// describeHTTPError renders an error response as text: Conjure errors by
// name and reason (or parameters), anything else by its first bytes.
func describeHTTPError(status string, body []byte) string {
	var ce struct {
		ErrorCode  string         `json:"errorCode"`
		ErrorName  string         `json:"errorName"`
		Parameters map[string]any `json:"parameters"`
	}
	if json.Unmarshal(body, &ce) == nil && ce.ErrorCode != "" {
		msg := status + ": " + ce.ErrorName
		if reason, ok := ce.Parameters["reason"].(string); ok && reason != "" {
			msg += ": " + reason
			delete(ce.Parameters, "reason")
		}
		if len(ce.Parameters) > 0 {
			var params []string
			for _, k := range slices.Sorted(maps.Keys(ce.Parameters)) {
				params = append(params, fmt.Sprintf("%s %v", k, ce.Parameters[k]))
			}
			msg += " (" + strings.Join(params, ", ") + ")"
		}
		return msg
	}
	text := strings.TrimSpace(string(body))
	if len(text) > 200 {
		text = text[:200] + "..."
	}
	if text == "" {
		return status
	}
	return status + ": " + text
}

// authHint says how to give `indexer status` a token, after a 401.
func authHint(token string) string {
	if token == "" {
		return "the server requires a token: pass --token TOKEN or set INDEXER_TOKEN"
	}
	return "the server refused the token: check --token or INDEXER_TOKEN"
}

// printStatus prints the status table, then the errors and invalid rows.
func printStatus(w io.Writer, sts []daemon.TypeStatus, now time.Time) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "OBJECT TYPE\tSTATE\tGEN\tOBJECTS\tCHECKPOINT\tTABLE SNAPSHOT\tLAG\tLAST BUILD")
	for _, st := range sts {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\t%s\t%s\n", st.ObjectType, st.State, st.Generation, st.Objects,
			snapshotText(st.CheckpointSnapshotID), snapshotText(st.TableSnapshotID), lagText(st), lastBuildText(st.LastBuild, now))
	}
	_ = tw.Flush()
	for _, st := range sts {
		if st.MergeOnRead == objects.MergeOnReadIndex {
			fmt.Fprintf(w, "\n%s: merge-on-read delete files are indexed (mergeOnRead: index)\n", st.ObjectType)
		}
		if b := st.Backend; b != nil {
			fmt.Fprintf(w, "\n%s: backend %s\n", st.ObjectType, backendText(b))
		}
		if e := st.LastError; e != nil {
			fmt.Fprintf(w, "\n%s %s: %s", st.ObjectType, st.State, e.Code)
			if !e.At.IsZero() {
				fmt.Fprintf(w, " (%s ago)", ago(now.Sub(e.At)))
			}
			if !st.NextRetryAt.IsZero() {
				fmt.Fprintf(w, ", next retry in %s", ago(st.NextRetryAt.Sub(now)))
			}
			fmt.Fprintf(w, "\n  %s\n", e.Message)
		}
		if n := st.InvalidRows.Count; n > 0 {
			fmt.Fprintf(w, "\n%s: %d invalid rows skipped", st.ObjectType, n)
			if len(st.InvalidRows.Samples) > 0 {
				fmt.Fprint(w, ", for example:")
			}
			fmt.Fprintln(w)
			for _, s := range st.InvalidRows.Samples {
				fmt.Fprintf(w, "  %s row %d", s.File, s.Row)
				if s.Key != "" {
					fmt.Fprintf(w, " key %s", s.Key)
				}
				fmt.Fprintf(w, ": %s\n", s.Reason)
			}
		}
	}
}

// backendText is a type's backend status on one line.
func backendText(b *indexer.BackendStatus) string {
	ms := func(f float64) time.Duration { return time.Duration(f * float64(time.Millisecond)) }
	name := b.Backend
	if b.EmbeddedIndex == config.EmbeddedIndexNone {
		name += " (no embedded index)"
	}
	s := fmt.Sprintf("%s: %d bulk writes (last %s, mean %s), %d retries, %d rejections, %d failures; %d reads (mean %s), %d failed, %d answered by the embedded index",
		name, b.Writes, ago(ms(b.BulkLatencyMs)), ago(ms(b.MeanBulkLatencyMs)), b.Retries, b.Rejections, b.Failures,
		b.Reads, ago(ms(b.MeanReadLatencyMs)), b.ReadFailures, b.Fallbacks)
	if b.LagSeconds > 0 {
		s += fmt.Sprintf(", failing for %s", ago(time.Duration(b.LagSeconds*float64(time.Second))))
	}
	return s
}

func snapshotText(id int64) string {
	if id == 0 {
		return "-"
	}
	return fmt.Sprint(id)
}

func lagText(st daemon.TypeStatus) string {
	if st.LagSnapshots == 0 {
		return "up to date"
	}
	return fmt.Sprintf("%s, %s", plural(st.LagSnapshots, "snapshot"), ago(time.Duration(st.LagSeconds*float64(time.Second))))
}

// plural counts things: 1 file, 2 files.
func plural[N int | int64](n N, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func lastBuildText(b *indexer.BuildSummary, now time.Time) string {
	if b == nil {
		return "-"
	}
	s := fmt.Sprintf("%s +%d -%d, %s, %s", b.Kind, b.Upserts, b.Deletes, plural(b.FilesRead, "file"), ago(time.Duration(b.DurationMs)*time.Millisecond))
	if !b.FinishedAt.IsZero() {
		s += ", " + ago(now.Sub(b.FinishedAt)) + " ago"
	}
	return s
}

// ago renders a duration for people: 850ms, 12s, 4m10s, 3h5m, 2d4h.
func ago(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	switch {
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return d.Round(time.Second).String()
	case d < time.Hour:
		s := d.Round(time.Second).String()
		if strings.HasSuffix(s, "m0s") {
			s = strings.TrimSuffix(s, "0s")
		}
		return s
	case d < 48*time.Hour:
		s := strings.TrimSuffix(d.Round(time.Minute).String(), "0s")
		if strings.HasSuffix(s, "h0m") {
			s = strings.TrimSuffix(s, "0m")
		}
		return s
	}
	days := d / (24 * time.Hour)
	return fmt.Sprintf("%dd%dh", days, (d-days*24*time.Hour)/time.Hour)
}
