package subscribebench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// metricPrefix names the server's subscription metrics.
const metricPrefix = "ontoindex_subscription"

// scrapeMetrics reads the server's subscription metrics from /metrics.
func scrapeMetrics(ctx context.Context, server string) (map[string]float64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, server+"/metrics", nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("scrape metrics: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("scrape metrics: HTTP %d", resp.StatusCode)
	}
	return parseMetrics(resp.Body)
}

// parseMetrics sums the samples of the subscription metrics over their
// labels, leaving out histogram buckets, and adds the mean of each
// histogram (name_mean_ms for name_seconds, from _sum and _count).
func parseMetrics(r io.Reader) (map[string]float64, error) {
	out := map[string]float64{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, metricPrefix) {
			continue
		}
		name, rest, ok := strings.Cut(line, " ")
		if i := strings.IndexByte(name, '{'); i >= 0 {
			// Labels may hold spaces: the value follows the closing brace.
			j := strings.LastIndexByte(line, '}')
			name, rest, ok = line[:i], strings.TrimSpace(line[j+1:]), j > 0
		}
		if !ok || strings.HasSuffix(name, "_bucket") {
			continue
		}
		value, _, _ := strings.Cut(strings.TrimSpace(rest), " ") // a timestamp may follow
		v, err := strconv.ParseFloat(value, 64)
		if err != nil {
			return nil, fmt.Errorf("metric %s: %w", line, err)
		}
		out[name] += v
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	for _, name := range sortedKeys(out) {
		base, ok := strings.CutSuffix(name, "_seconds_sum")
		if n := out[base+"_seconds_count"]; ok && n > 0 {
			out[base+"_mean_ms"] = out[name] / n * 1000
		}
	}
	return out, nil
}

func sortedKeys(m map[string]float64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
