package daemon

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
)

func TestSchedule_Decide(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	cp := &indexer.Checkpoint{SnapshotID: 10}
	tests := []struct {
		name    string
		s       schedule
		now     time.Time
		current int64
		cp      *indexer.Checkpoint
		build   bool
		full    bool
	}{
		{name: "up to date", s: schedule{}, now: t0, current: 10, cp: cp},
		{name: "new snapshot", s: schedule{}, now: t0, current: 11, cp: cp, build: true},
		{name: "never built", s: schedule{}, now: t0, current: 11, cp: nil, build: true},
		{name: "empty table never built", s: schedule{}, now: t0, current: 0, cp: nil, build: true},
		{name: "dirty at start", s: schedule{dirty: true}, now: t0, current: 10, cp: cp, build: true},
		{name: "backing off", s: schedule{failures: 2, retryAt: t0.Add(time.Second)}, now: t0, current: 11, cp: cp},
		{name: "backoff over", s: schedule{failures: 2, retryAt: t0.Add(time.Second)}, now: t0.Add(time.Second), current: 10, cp: cp, build: true},
		{name: "rebuild waits for backoff", s: schedule{failures: 1, retryAt: t0.Add(time.Minute), rebuild: true}, now: t0, current: 10, cp: cp},
		{name: "urgent rebuild skips backoff", s: schedule{failures: 1, retryAt: t0.Add(time.Minute), rebuild: true, urgent: true}, now: t0, current: 10, cp: cp, build: true, full: true},
		{name: "rebuild when up to date", s: schedule{rebuild: true}, now: t0, current: 10, cp: cp, build: true, full: true},
		{name: "blocked on same snapshot", s: schedule{blocked: true, blockedAt: 11}, now: t0.Add(time.Hour), current: 11, cp: cp},
		{name: "blocked ignores dirty", s: schedule{blocked: true, blockedAt: 11, dirty: true}, now: t0, current: 11, cp: cp},
		{name: "blocked ignores rebuild", s: schedule{blocked: true, blockedAt: 11, rebuild: true, urgent: true}, now: t0, current: 11, cp: cp},
		{name: "blocked table changed", s: schedule{blocked: true, blockedAt: 11}, now: t0, current: 12, cp: cp, build: true},
		{name: "blocked table rolled back", s: schedule{blocked: true, blockedAt: 11}, now: t0, current: 10, cp: cp, build: true},
		{name: "blocked rebuild after change", s: schedule{blocked: true, blockedAt: 11, rebuild: true}, now: t0, current: 12, cp: cp, build: true, full: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := tt.s.decide(tt.now, tt.current, tt.cp)
			if d.build != tt.build || d.full != tt.full {
				t.Fatalf("decide = build %v full %v (%s), want build %v full %v", d.build, d.full, d.why, tt.build, tt.full)
			}
		})
	}
}

// TestSchedule_Sequence walks a schedule through the outcomes of builds
// with an injected clock.
func TestSchedule_Sequence(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	cp := &indexer.Checkpoint{SnapshotID: 10}
	base, limit := time.Second, 5*time.Second
	var s schedule
	s.dirty = true

	// A failure backs off 1s, 2s, 4s, 5s, 5s.
	now := t0
	for i, want := range []time.Duration{1, 2, 4, 5, 5} {
		d := s.decide(now, 11, cp)
		if !d.build {
			t.Fatalf("attempt %d: no build (%s)", i+1, d.why)
		}
		s.start(d)
		s.failed(now, backoff(base, limit, s.failures+1), false)
		if got := s.wait(now, time.Minute); got != want*time.Second {
			t.Fatalf("after failure %d: wait %s, want %s", i+1, got, want*time.Second)
		}
		// A poll interval shorter than the backoff: polls go on, no build.
		if got := s.wait(now, 100*time.Millisecond); got != 100*time.Millisecond {
			t.Fatalf("after failure %d: wait = %s, want the poll interval", i+1, got)
		}
		if d := s.decide(now.Add(want*time.Second-time.Millisecond), 11, cp); d.build {
			t.Fatalf("after failure %d: builds before the backoff is over", i+1)
		}
		now = now.Add(want * time.Second)
	}
	// A merge-on-read refusal ends the backoff and waits for a new snapshot,
	// however long it takes.
	d := s.decide(now, 11, cp)
	s.start(d)
	s.refused(11, d.full)
	if s.failures != 0 || !s.blocked {
		t.Fatalf("after refusal: %+v", s)
	}
	for _, later := range []time.Duration{time.Second, time.Hour, 24 * time.Hour} {
		if d := s.decide(now.Add(later), 11, cp); d.build {
			t.Fatalf("blocked type builds %s later on the same snapshot", later)
		}
		if got := s.wait(now.Add(later), time.Minute); got != time.Minute {
			t.Fatalf("blocked wait = %s, want the poll interval", got)
		}
	}
	// An operator rebuild while blocked stays pending until the table moves.
	s.requestRebuild()
	if d := s.decide(now, 11, cp); d.build {
		t.Fatal("rebuild of a blocked type builds before the table changed")
	}
	d = s.decide(now, 12, cp)
	if !d.build || !d.full {
		t.Fatalf("after the table changed: %+v, want a full build", d)
	}
	full := s.start(d)
	s.refused(12, full) // still merge-on-read
	if !s.rebuild {
		t.Fatal("a refused rebuild was forgotten")
	}
	d = s.decide(now, 13, cp)
	full = s.start(d)
	if !full {
		t.Fatal("the pending rebuild is not full")
	}
	s.succeeded()
	if s.blocked || s.failures != 0 || s.rebuild || s.dirty {
		t.Fatalf("after success: %+v", s)
	}
	if d := s.decide(now, 13, &indexer.Checkpoint{SnapshotID: 13}); d.build {
		t.Fatalf("up-to-date type builds: %s", d.why)
	}

	// An interrupted full build is done again.
	s.requestRebuild()
	full = s.start(s.decide(now, 13, cp))
	s.interrupted(full)
	if d := s.decide(now, 13, &indexer.Checkpoint{SnapshotID: 13}); !d.build || !d.full {
		t.Fatalf("after an interrupted rebuild: %+v", d)
	}
}

func TestBackoff(t *testing.T) {
	tests := []struct {
		base, limit time.Duration
		n           int
		want        time.Duration
	}{
		{time.Second, 5 * time.Minute, 0, 0},
		{time.Second, 5 * time.Minute, 1, time.Second},
		{time.Second, 5 * time.Minute, 2, 2 * time.Second},
		{time.Second, 5 * time.Minute, 9, 256 * time.Second},
		{time.Second, 5 * time.Minute, 10, 5 * time.Minute},
		{time.Second, 5 * time.Minute, 1000, 5 * time.Minute},
		{3 * time.Second, 10 * time.Second, 3, 10 * time.Second},
		{0, 10 * time.Second, 3, 0},
	}
	for _, tt := range tests {
		if got := backoff(tt.base, tt.limit, tt.n); got != tt.want {
			t.Errorf("backoff(%s, %s, %d) = %s, want %s", tt.base, tt.limit, tt.n, got, tt.want)
		}
	}
}

func TestJittered(t *testing.T) {
	tests := []struct {
		d    time.Duration
		frac float64
		r    float64
		want time.Duration
	}{
		{10 * time.Second, 0.1, 0, 10 * time.Second},
		{10 * time.Second, 0.1, 0.5, 9500 * time.Millisecond},
		{10 * time.Second, 0.1, 0.999, 9001 * time.Millisecond},
		{10 * time.Second, 0, 0.9, 10 * time.Second},
		{0, 0.1, 0.9, 0},
	}
	for _, tt := range tests {
		if got := jittered(tt.d, tt.frac, tt.r); got != tt.want {
			t.Errorf("jittered(%s, %v, %v) = %s, want %s", tt.d, tt.frac, tt.r, got, tt.want)
		}
	}
}

func TestSincePoll(t *testing.T) {
	start := time.Unix(1000, 0)
	tests := []struct {
		name    string
		elapsed time.Duration
		want    time.Duration
	}{
		{"a quick poll", 0, time.Second},
		{"the poll's read counts", 30 * time.Millisecond, 970 * time.Millisecond},
		{"a poll longer than the interval", 3 * time.Second, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := sincePoll(time.Second, start, start.Add(tt.elapsed)); got != tt.want {
				t.Errorf("sincePoll = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestLimiter_Acquire(t *testing.T) {
	ctx := context.Background()
	l := newLimiter(1)
	if err := l.acquire(ctx); err != nil {
		t.Fatal(err)
	}
	// A second acquire waits until the context ends.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := l.acquire(cctx); err == nil {
		t.Fatal("acquire beyond the bound succeeded")
	}
	// Raising the bound wakes a waiter.
	got := make(chan error, 1)
	go func() { got <- l.acquire(ctx) }()
	l.setMax(2)
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	// Releasing wakes a waiter.
	go func() { got <- l.acquire(ctx) }()
	l.release()
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.n != 2 {
		t.Fatalf("held slots = %d, want 2", l.n)
	}
}

func TestDaemonConfig_Validate(t *testing.T) {
	tests := []struct {
		yaml string
		want string // substring of the error; empty: valid
	}{
		{"", ""},
		{"daemon: {pollInterval: 2s, jitter: 0.2, maxConcurrentBuilds: 4, retryBackoff: 500ms, maxRetryBackoff: 1m}", ""},
		{"daemon: {pollInterval: -1s}", "daemon.pollInterval"},
		{"daemon: {jitter: 1}", "daemon.jitter"},
		{"daemon: {maxConcurrentBuilds: -1}", "daemon.maxConcurrentBuilds"},
		{"daemon: {retryBackoff: 10s, maxRetryBackoff: 5s}", "daemon.maxRetryBackoff"},
		{"daemon: {pollIntervall: 5s}", `unknown key "pollIntervall"`},
		{"daemon: {pollInterval: often}", "often"},
	}
	base := "catalogs: {w: {type: hadoop, warehouse: /tmp/w}}\nobjectTypes: [{apiName: T, table: w.ns.t}]\n"
	for _, tt := range tests {
		t.Run(tt.yaml, func(t *testing.T) {
			cfg, err := config.Parse([]byte(base+tt.yaml), t.TempDir())
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tt.want != "" && err == nil:
				t.Fatalf("no error, want one naming %s", tt.want)
			case tt.want != "" && !strings.Contains(err.Error(), tt.want):
				t.Fatalf("error %q does not name %s", err, tt.want)
			}
			if err == nil && strings.Contains(tt.yaml, "pollInterval: 2s") {
				d := cfg.Daemon.WithDefaults()
				if d.PollInterval != 2*time.Second || d.MaxConcurrentBuilds != 4 || d.RetryBackoff != 500*time.Millisecond || d.MaxRetryBackoff != time.Minute {
					t.Fatalf("parsed %+v", d)
				}
			}
			if err == nil && tt.yaml == "" {
				d := cfg.Daemon.WithDefaults()
				if d.PollInterval != config.DefaultPollInterval || d.MaxConcurrentBuilds != config.DefaultMaxConcurrentBuilds || d.MaxRetryBackoff != config.DefaultMaxRetryBackoff {
					t.Fatalf("defaults %+v", d)
				}
			}
		})
	}
}

// TestLag counts unindexed snapshots on a real table's lineage.
func TestLag(t *testing.T) {
	ctx := context.Background()
	w := icebergtest.MustWarehouse(t)
	sc := iceberg.NewSchemaWithIdentifiers(1, []int{1},
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true})
	tb, err := w.CreateTable(ctx, "ns.t", sc, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := lag(tb.T.Metadata(), 0); n != 0 {
		t.Fatalf("lag of an empty table = %d", n)
	}
	var ids []int64
	for i := range 3 {
		if err := tb.Append(ctx, []icebergtest.Row{{"id": i}}); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, tb.T.CurrentSnapshot().SnapshotID)
	}
	md := tb.T.Metadata()
	first := time.UnixMilli(md.SnapshotByID(ids[0]).TimestampMs)
	second := time.UnixMilli(md.SnapshotByID(ids[1]).TimestampMs)
	tests := []struct {
		name       string
		checkpoint int64
		want       int
		oldest     time.Time
	}{
		{"never built", 0, 3, first},
		{"at first", ids[0], 2, second},
		{"at current", ids[2], 0, time.Time{}},
		{"unknown checkpoint", 12345, 3, first},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, oldest := lag(md, tt.checkpoint)
			if n != tt.want || !oldest.Equal(tt.oldest) {
				t.Fatalf("lag = %d, %s; want %d, %s", n, oldest, tt.want, tt.oldest)
			}
		})
	}
	t.Run("rolled back", func(t *testing.T) {
		if err := tb.Rollback(ctx, ids[0]); err != nil {
			t.Fatal(err)
		}
		md := tb.T.Metadata()
		n, oldest := lag(md, ids[2])
		if n != 1 || !oldest.Equal(time.UnixMilli(md.LastUpdatedMillis())) {
			t.Fatalf("lag after rollback = %d, %s", n, oldest)
		}
	})
}
