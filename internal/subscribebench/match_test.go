package subscribebench

import (
	"reflect"
	"testing"
	"time"

	"github.com/ontoindex/ontoindex/internal/searchbench"
)

func TestMatch(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	commits := []Commit{
		{Seq: 0, Key: 10, Name: "Ana Silva edit0", Returned: t0},
		{Seq: 1, Key: 20, Name: "Hugo Novak edit1", Returned: t0.Add(time.Second)},
	}
	kinds := []Kind{KindBase, KindMatch, KindNever}
	ok := func(sub int, key int64, name string, after time.Duration) Delivery {
		return Delivery{Sub: sub, Key: key, Name: name, State: "ADDED_OR_UPDATED", At: t0.Add(after)}
	}
	// Every expected delivery, at known latencies: 100, 200, 300, 400 ms.
	all := []Delivery{
		ok(0, 10, "Ana Silva edit0", 100*time.Millisecond),
		ok(1, 10, "Ana Silva edit0", 200*time.Millisecond),
		ok(0, 20, "Hugo Novak edit1", 1300*time.Millisecond),
		ok(1, 20, "Hugo Novak edit1", 1400*time.Millisecond),
	}
	earlier := func(key int64) bool { return key == 5 }
	tests := []struct {
		name       string
		deliveries []Delivery
		gaps       []Gap
		want       Outcome // without Latencies
		latencies  []time.Duration
	}{
		{name: "all delivered", deliveries: all,
			want:      Outcome{Expected: 4, Delivered: 4},
			latencies: []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 300 * time.Millisecond, 400 * time.Millisecond}},
		{name: "one lost without a word", deliveries: all[:3],
			want:      Outcome{Expected: 4, Delivered: 3, Missing: 1},
			latencies: []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 300 * time.Millisecond}},
		{name: "one not delivered but refreshed", deliveries: all[:3], gaps: []Gap{{Sub: 1, Type: "refreshObjectSet"}},
			want:      Outcome{Expected: 4, Delivered: 3, Refreshed: 1, Gaps: 1},
			latencies: []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 300 * time.Millisecond}},
		{name: "a filter that never matches receives an edit",
			deliveries: append([]Delivery{ok(2, 10, "Ana Silva edit0", 0)}, all...),
			want:       Outcome{Expected: 4, Delivered: 4, Unexpected: 1}},
		{name: "a key nobody committed", deliveries: append([]Delivery{ok(0, 99, "x", 0)}, all...),
			want: Outcome{Expected: 4, Delivered: 4, Unexpected: 1}},
		{name: "a key of the part before arrives late", deliveries: append([]Delivery{ok(0, 5, "x", 0)}, all...),
			want: Outcome{Expected: 4, Delivered: 4, Earlier: 1}},
		{name: "a key twice on one subscription", deliveries: append(all, ok(0, 10, "Ana Silva edit0", time.Second)),
			want: Outcome{Expected: 4, Delivered: 4, Duplicates: 1}},
		{name: "the name before the edit",
			deliveries: append([]Delivery{ok(0, 10, "Ana Silva", 0)}, all[1:]...),
			want:       Outcome{Expected: 4, Delivered: 3, Stale: 1}},
		{name: "an edited object reported removed",
			deliveries: append([]Delivery{{Sub: 0, Key: 10, State: "REMOVED", At: t0}}, all[1:]...),
			want:       Outcome{Expected: 4, Delivered: 3, Stale: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := match(commits, kinds, tt.deliveries, tt.gaps, earlier)
			lat := got.Latencies
			if len(got.arrivals) != got.Delivered {
				t.Errorf("%d arrivals of %d deliveries", len(got.arrivals), got.Delivered)
			}
			got.Latencies, got.arrivals = nil, nil
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("outcome %+v, want %+v", got, tt.want)
			}
			if tt.latencies != nil {
				if len(lat) != len(tt.latencies) {
					t.Fatalf("latencies %v, want %v", lat, tt.latencies)
				}
				for i := range lat {
					if lat[i] != tt.latencies[i] {
						t.Errorf("latencies %v, want %v", lat, tt.latencies)
						break
					}
				}
			}
			if wantErrors := tt.want.Missing + tt.want.Unexpected + tt.want.Duplicates + tt.want.Stale; got.Errors() != wantErrors {
				t.Errorf("Errors() = %d, want %d", got.Errors(), wantErrors)
			}
		})
	}
}

func TestOutcome_add(t *testing.T) {
	a := Outcome{Latencies: []time.Duration{1}, Expected: 2, Delivered: 1, Missing: 1}
	a.add(Outcome{Latencies: []time.Duration{2, 3}, Expected: 4, Delivered: 2, Refreshed: 2, Gaps: 1, Unexpected: 1, Duplicates: 1, Stale: 1, Earlier: 1})
	if len(a.Latencies) != 3 {
		t.Errorf("latencies %v", a.Latencies)
	}
	a.Latencies = nil
	want := Outcome{Expected: 6, Delivered: 3, Missing: 1, Refreshed: 2, Gaps: 1, Unexpected: 1, Duplicates: 1, Stale: 1, Earlier: 1}
	if !reflect.DeepEqual(a, want) {
		t.Errorf("%+v, want %+v", a, want)
	}
}

func TestSummarize(t *testing.T) {
	tests := []struct {
		name string
		lat  []time.Duration
		want Latency
	}{
		{name: "none", want: Latency{}},
		{name: "one", lat: []time.Duration{7 * time.Millisecond}, want: Latency{Samples: 1, P50Ms: 7, P99Ms: 7, MaxMs: 7}},
		{name: "1..200 ms, shuffled", lat: shuffledMillis(200), want: Latency{Samples: 200, P50Ms: 100, P99Ms: 198, MaxMs: 200}},
		{name: "a delivery before the commit returned counts as negative", lat: []time.Duration{-time.Millisecond, 3 * time.Millisecond},
			want: Latency{Samples: 2, P50Ms: -1, P99Ms: 3, MaxMs: 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := summarize(tt.lat); got != tt.want {
				t.Errorf("summarize = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// shuffledMillis is 1..n ms in an order that is not sorted.
func shuffledMillis(n int) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = time.Duration((i*37)%n+1) * time.Millisecond
	}
	return out
}

func TestServedAt(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	commits := []Commit{{Snapshot: 11}, {Snapshot: 12}, {Snapshot: 13}, {Snapshot: 14}}
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	tests := []struct {
		name   string
		builds []searchbench.Build
		want   []time.Time
	}{
		{name: "one build per commit", builds: []searchbench.Build{{To: 11, FinishedAt: at(1)}, {To: 12, FinishedAt: at(2)}, {To: 13, FinishedAt: at(3)}, {To: 14, FinishedAt: at(4)}},
			want: []time.Time{at(1), at(2), at(3), at(4)}},
		{name: "a build serves the commits before its snapshot too", builds: []searchbench.Build{{To: 9, FinishedAt: at(0)}, {To: 12, FinishedAt: at(2)}, {To: 14, FinishedAt: at(5)}},
			want: []time.Time{at(2), at(2), at(5), at(5)}},
		{name: "a failed build serves nothing", builds: []searchbench.Build{{To: 12, FinishedAt: at(2), Error: "x"}, {To: 13, FinishedAt: at(3)}},
			want: []time.Time{at(3), at(3), at(3), {}}},
		{name: "no builds", want: []time.Time{{}, {}, {}, {}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := servedAt(commits, tt.builds)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("servedAt = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestSplit(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	commits := []Commit{
		{Key: 1, Name: "a", Snapshot: 11, Returned: t0},
		{Key: 2, Name: "b", Snapshot: 12, Returned: t0.Add(time.Second)},
		{Key: 3, Name: "c", Snapshot: 13, Returned: t0.Add(2 * time.Second)},
	}
	kinds := []Kind{KindBase, KindMatch}
	var deliveries []Delivery
	for sub := range kinds {
		for i, c := range commits {
			// Each receipt is 10 ms (subscription 0) or 30 ms (1) after its build.
			deliveries = append(deliveries, Delivery{Sub: sub, Key: c.Key, Name: c.Name, State: "ADDED_OR_UPDATED",
				At: t0.Add(time.Duration(i)*time.Second + 400*time.Millisecond + time.Duration(10+20*sub)*time.Millisecond)})
		}
	}
	o := match(commits, kinds, deliveries, nil, nil)
	// Commits 0 and 1 are served 400 ms after they return, commit 2 by no known build.
	served := []time.Time{t0.Add(400 * time.Millisecond), t0.Add(1400 * time.Millisecond), {}}
	build, push := split(commits, o, served)
	if want := (Latency{Samples: 2, P50Ms: 400, P99Ms: 400, MaxMs: 400}); build != want {
		t.Errorf("commit to served %+v, want %+v", build, want)
	}
	if want := (Latency{Samples: 4, P50Ms: 10, P99Ms: 30, MaxMs: 30}); push != want {
		t.Errorf("served to received %+v, want %+v", push, want)
	}
}
