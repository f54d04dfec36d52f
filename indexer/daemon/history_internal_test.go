package daemon

import (
	"testing"
	"time"

	"github.com/ontoindex/ontoindex/indexer"
)

// TestTypeRun_recordBuild: the ring keeps the last MaxRecentBuilds
// builds, oldest first, and a status's copy does not change with it.
func TestTypeRun_recordBuild(t *testing.T) {
	r := newRun("T")
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	const n = MaxRecentBuilds + 7
	for i := 1; i <= n; i++ {
		res := &indexer.BuildResult{Kind: indexer.KindIncremental, ToSnapshotID: int64(i), DurationMs: int64(i)}
		if i%10 == 0 {
			res.Error = &indexer.ErrorInfo{Code: indexer.CodeInternal}
		}
		r.recordBuild(res, now.Add(-1500*time.Millisecond), now)
	}
	if len(r.history) != MaxRecentBuilds {
		t.Fatalf("%d builds kept, want %d", len(r.history), MaxRecentBuilds)
	}
	for i, b := range r.history {
		want := int64(n - MaxRecentBuilds + 1 + i)
		if b.To != want || b.LagSeconds != 1.5 || !b.FinishedAt.Equal(now) || (b.Error != "") != (want%10 == 0) {
			t.Fatalf("history[%d] = %+v, want the build to %d", i, b, want)
		}
	}
	st := TypeStatus{RecentBuilds: []BuildRecord{}}
	st.RecentBuilds = append(st.RecentBuilds, r.history...)
	r.recordBuild(&indexer.BuildResult{ToSnapshotID: 1000}, time.Time{}, now)
	if st.RecentBuilds[len(st.RecentBuilds)-1].To != n || r.history[len(r.history)-1].LagSeconds != 0 {
		t.Fatalf("the status copy changed with the ring: %+v", st.RecentBuilds[len(st.RecentBuilds)-1])
	}
}
