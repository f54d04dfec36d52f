package subscribebench

import (
	"time"

	"github.com/ontoindex/ontoindex/internal/searchbench"
)

// Kind is what a subscription's object set holds of the edited keys.
type Kind string

// Kinds of subscriptions (requests.go builds their object sets).
const (
	KindBase  Kind = "base"  // every Customer: receives every edit
	KindMatch Kind = "match" // a filter that holds every edited key
	KindNever Kind = "never" // a filter that holds none: receives nothing
)

// expects says whether a subscription of the kind must receive the edits.
func (k Kind) expects() bool { return k == KindBase || k == KindMatch }

// Commit is one copy-on-write edit the writer committed: one customer's
// name, marked with the commit's number, so that a delivery shows which
// version of the object it carries.
type Commit struct {
	Seq      int
	Key      int64
	Name     string    // the name the edit wrote
	Snapshot int64     // the table snapshot it made
	Returned time.Time // when the commit call returned
}

// Delivery is one object of an objectSetChanged message, as one
// subscription received it.
type Delivery struct {
	Sub   int // index of the subscription in the plan
	Key   int64
	Name  string
	State string    // ADDED_OR_UPDATED or REMOVED
	At    time.Time // when the client read the message
}

// Gap is a refreshObjectSet (the client's onOutOfDate) or a
// subscriptionClosed a subscription received.
type Gap struct {
	Sub  int
	Type string
}

// Outcome is how the deliveries of one part compare with its commits.
type Outcome struct {
	// Latencies are commit return to receipt, of every expected delivery
	// that arrived, in no order.
	Latencies []time.Duration `json:"-"`
	// arrivals are the same deliveries by commit (an index into the
	// part's commits) and time of receipt. Of one part: add leaves them
	// out.
	arrivals  []arrival
	Expected  int `json:"expected"`  // (subscription, commit) pairs that must arrive
	Delivered int `json:"delivered"` // of those, arrived
	// Missing arrived neither as a delivery nor, for their subscription,
	// as a refresh: lost without a word.
	Missing int `json:"missing"`
	// Refreshed did not arrive, but their subscription was told to
	// refresh (or was closed): the client reloads, nothing is lost.
	Refreshed int `json:"refreshed"`
	Gaps      int `json:"gaps"` // refreshObjectSet and subscriptionClosed messages
	// Unexpected arrived at a subscription whose set never held the key,
	// or named a key nobody committed.
	Unexpected int `json:"unexpected"`
	Duplicates int `json:"duplicates"` // the same key more than once on one subscription
	Stale      int `json:"stale"`      // an older name than the commit wrote, or REMOVED
	// Earlier are deliveries of keys committed before the part: late
	// deliveries of the previous part's commits, not errors.
	Earlier int `json:"earlier"`
}

// arrival is when an expected delivery of a commit arrived.
type arrival struct {
	commit int
	at     time.Time
}

// Errors is the number of deliveries that went wrong.
func (o Outcome) Errors() int { return o.Missing + o.Unexpected + o.Duplicates + o.Stale }

// add merges p into o.
func (o *Outcome) add(p Outcome) {
	o.Latencies = append(o.Latencies, p.Latencies...)
	o.Expected += p.Expected
	o.Delivered += p.Delivered
	o.Missing += p.Missing
	o.Refreshed += p.Refreshed
	o.Gaps += p.Gaps
	o.Unexpected += p.Unexpected
	o.Duplicates += p.Duplicates
	o.Stale += p.Stale
	o.Earlier += p.Earlier
}

// match compares the deliveries and gaps of a part with its commits: kinds
// are the kinds of the subscriptions by index (all of them subscribed for
// the whole part), earlier says whether a key was committed before the part.
func match(commits []Commit, kinds []Kind, deliveries []Delivery, gaps []Gap, earlier func(key int64) bool) Outcome {
	var o Outcome
	byKey := make(map[int64]int, len(commits)) // key -> index in commits
	for i, c := range commits {
		byKey[c.Key] = i
	}
	type pair struct {
		sub    int
		commit int
	}
	seen := make(map[pair]bool, len(deliveries))
	for _, d := range deliveries {
		i, ok := byKey[d.Key]
		switch {
		case !ok && earlier != nil && earlier(d.Key):
			o.Earlier++
			continue
		case !ok || d.Sub < 0 || d.Sub >= len(kinds) || !kinds[d.Sub].expects():
			o.Unexpected++
			continue
		}
		p := pair{d.Sub, i}
		if seen[p] {
			o.Duplicates++
			continue
		}
		seen[p] = true
		c := commits[i]
		if d.State != "ADDED_OR_UPDATED" || d.Name != c.Name {
			o.Stale++
			continue
		}
		o.Delivered++
		o.Latencies = append(o.Latencies, d.At.Sub(c.Returned))
		o.arrivals = append(o.arrivals, arrival{commit: i, at: d.At})
	}
	refreshed := make(map[int]bool, len(gaps))
	for _, g := range gaps {
		refreshed[g.Sub] = true
	}
	o.Gaps = len(gaps)
	for sub, k := range kinds {
		if !k.expects() {
			continue
		}
		for i := range commits {
			o.Expected++
			if seen[pair{sub, i}] {
				continue
			}
			if refreshed[sub] {
				o.Refreshed++
			} else {
				o.Missing++
			}
		}
	}
	return o
}

// servedAt is, for each commit, when the server finished the build that
// first served it: a build to the snapshot of commit j serves every commit
// up to j. Zero for a commit no build of builds (oldest first) served.
func servedAt(commits []Commit, builds []searchbench.Build) []time.Time {
	bySnapshot := make(map[int64]int, len(commits))
	for i, c := range commits {
		bySnapshot[c.Snapshot] = i
	}
	out := make([]time.Time, len(commits))
	next := 0 // the first commit not yet served
	for _, b := range builds {
		j, ok := bySnapshot[b.To]
		if b.Error != "" || !ok {
			continue
		}
		for ; next <= j; next++ {
			out[next] = b.FinishedAt
		}
	}
	return out
}

// split divides the latency of the deliveries of o into the time each
// commit took to be served (the poll's wait and the build, once per
// commit) and the time from then to each receipt (the push). Commits no
// build is known for are left out of both.
func split(commits []Commit, o Outcome, served []time.Time) (build, push Latency) {
	var toServed, toReceipt []time.Duration
	for i, c := range commits {
		if !served[i].IsZero() {
			toServed = append(toServed, served[i].Sub(c.Returned))
		}
	}
	for _, a := range o.arrivals {
		if !served[a.commit].IsZero() {
			toReceipt = append(toReceipt, a.at.Sub(served[a.commit]))
		}
	}
	return summarize(toServed), summarize(toReceipt)
}

// Latency is the summary of commit to receipt latencies.
type Latency struct {
	Samples int     `json:"samples"`
	P50Ms   float64 `json:"p50Ms"`
	P99Ms   float64 `json:"p99Ms"`
	MaxMs   float64 `json:"maxMs"`
}

// summarize returns the percentiles of lat (which it sorts).
func summarize(lat []time.Duration) Latency {
	return Latency{Samples: len(lat), P50Ms: searchbench.PercentileMs(lat, 50),
		P99Ms: searchbench.PercentileMs(lat, 99), MaxMs: searchbench.PercentileMs(lat, 100)}
}
