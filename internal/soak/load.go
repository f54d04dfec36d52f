package soak

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// loadPhase runs o.Clients closed-loop clients for o.Load while the writer
// commits: gets, searches (and their second pages), aggregations, object
// sets (unions and searchArounds) and lists, each answer checked against
// the model (checkObjects and the counts of every state; one first page
// in exactEvery against the model's page of every state it may be of).
// Then the writer pauses, the server catches up, and the lags and the
// final comparison with the tables are made.
func (r *run) loadPhase(ctx context.Context) error {
	p := startProbe(ctx, r)
	defer p.stop()
	l := &loader{r: r, p: p}
	resent := r.c.resent.Load()
	start := time.Now()
	lctx, cancel := context.WithDeadline(ctx, start.Add(r.o.Load))
	defer cancel()
	stats := make([]clientStats, r.o.Clients)
	var wg sync.WaitGroup
	for i := range r.o.Clients {
		wg.Go(func() {
			cs := &stats[i]
			cs.init()
			cs.start = start
			rng := rand.New(rand.NewPCG(r.o.Seed, 0x10ad<<16|uint64(i)))
			for lctx.Err() == nil {
				l.once(lctx, rng, cs)
			}
		})
	}
	// Progress every 10 s; a full rebuild into a new generation every
	// rebuildEvery, of each type in turn, swapped in under the load.
	tick := time.NewTicker(10 * time.Second)
	defer tick.Stop()
	rebuild := time.NewTicker(rebuildEvery)
	defer rebuild.Stop()
	waited := make(chan struct{})
	go func() { wg.Wait(); close(waited) }()
	rebuilds, rebuildErr := 0, error(nil)
loop:
	for {
		select {
		case <-waited:
			break loop
		case <-tick.C:
			n := 0
			for i := range stats {
				n += int(stats[i].requests.Load())
			}
			r.logf("load: %s, %d requests so far", time.Since(start).Round(time.Second), n)
		case <-rebuild.C:
			typ := []string{itemType, groupType}[rebuilds%2]
			if err := r.c.rebuild(lctx, typ); err != nil && lctx.Err() == nil && rebuildErr == nil {
				rebuildErr = fmt.Errorf("rebuild %s during the load: %w", typ, err)
			}
			rebuilds++
		}
	}
	if rebuildErr != nil {
		return rebuildErr
	}
	end := time.Now()
	if err := r.wl.failed(); err != nil {
		return fmt.Errorf("writer: %w", err)
	}
	if err := r.wl.pause(); err != nil {
		return fmt.Errorf("writer: %w", err)
	}
	defer r.wl.resume()
	if err := r.caughtUp(ctx); err != nil {
		return err
	}
	p.look(ctx)
	fig := newLoadFigures(r.o, end.Sub(start))
	for i := range stats {
		fig.add(&stats[i])
	}
	fig.finish()
	lags, missing := p.lags(start, end)
	fig.setLag(lags, missing)
	for _, v := range p.back {
		fig.violate(v)
	}
	fig.Commits = len(lags) + len(missing)
	fig.Rebuilds = rebuilds
	fig.Resent = r.c.resent.Load() - resent
	r.rep.Load = fig
	if err := r.checkServed(ctx, "after the load"); err != nil {
		return err
	}
	r.logf("load: %d requests, %d errors, %d violations, p99 %.1f ms, lag p99 %.0f ms", fig.Requests, fig.Errors, fig.violations(), fig.P99Ms, fig.Lag.P99Ms)
	return nil
}

// exactEvery: one first page in exactEvery is compared with the model's
// page of each state it may be of (the other checks are on every answer).
const exactEvery = 10

// rebuildEvery is the time between the rebuilds the load asks for.
const rebuildEvery = 10 * time.Second

type loader struct {
	r *run
	p *probe
}

// once sends one request drawn from rng and checks its answer.
func (l *loader) once(ctx context.Context, rng *rand.Rand, cs *clientStats) {
	m := l.r.m
	switch x := rng.IntN(100); {
	case x < 25:
		id := 1 + rng.Int64N(m.maxItem()+3)
		l.get(ctx, cs, "get", itemType, itemsTable, id)
	case x < 30:
		l.get(ctx, cs, "get", groupType, groupsTable, 1+rng.Int64N(int64(m.groups)))
	case x < 55:
		q := randomItemQuery(rng, m.groups)
		body := map[string]any{"orderBy": q.orderBy(), "pageSize": 1 + rng.IntN(100)}
		if q.where != nil {
			body["where"] = q.where
		}
		l.pages(ctx, rng, cs, "search", apiPath("/objects/%s/search", itemType), body, q)
	case x < 65:
		l.aggregate(ctx, rng, cs)
	case x < 85:
		q, set := unionQuery(rng)
		if rng.IntN(2) == 0 {
			q, set = aroundQuery(rng, m.groups)
		}
		body := map[string]any{"objectSet": set, "orderBy": q.orderBy(), "pageSize": 1 + rng.IntN(100)}
		l.pages(ctx, rng, cs, "loadObjects", apiPath("/objectSets/loadObjects"), body, q)
	default:
		q := itemQuery{desc: "list", match: func(item) bool { return true }, count: func(c *counts) int64 { return c.total }}
		l.list(ctx, rng, cs, 1+rng.IntN(200), q)
	}
}

// window is the states an answer to a request that starts now and ends
// at done may be of: from the newest state seen served, to the last
// commit begun when the answer arrived.
func (l *loader) window(table string) span { return span{l.p.floor(table), maxSeq} }

func (l *loader) get(ctx context.Context, cs *clientStats, op, typ, table string, key int64) {
	w := l.window(table)
	t0 := time.Now()
	o, found, err := l.r.c.get(ctx, apiPath("/objects/%s/%d", typ, key))
	w.hi = l.r.m.last()
	if !cs.done(ctx, op, t0, err) {
		return
	}
	if found {
		_, vs := l.r.m.checkObjects(typ, []map[string]string{o}, w)
		cs.violate(vs...)
		return
	}
	if !l.r.m.absentIn(typ, key, w) {
		cs.violate(violationf(vLost, "get %s %d: not found, but it exists in every state of %v", typ, key, w))
	}
}

// pages sends a search or loadObjects request, checks its page and, one
// time in five, the next page.
func (l *loader) pages(ctx context.Context, rng *rand.Rand, cs *clientStats, op, path string, body map[string]any, q itemQuery) {
	n := body["pageSize"].(int)
	w := l.window(itemsTable)
	t0 := time.Now()
	p, err := l.r.c.post(ctx, path, body)
	w.hi = l.r.m.last()
	if !cs.done(ctx, op, t0, err) {
		return
	}
	l.checkPage(rng, cs, op+" "+q.desc, p, q, n, w, true)
	if p.Next == "" || rng.IntN(5) != 0 {
		return
	}
	body["pageToken"] = p.Next
	w = l.window(itemsTable)
	t0 = time.Now()
	p, err = l.r.c.post(ctx, path, body)
	w.hi = l.r.m.last()
	if !cs.done(ctx, op+" (next page)", t0, err) {
		return
	}
	l.checkPage(rng, cs, op+" "+q.desc+" (next page)", p, q, n, w, false)
}

func (l *loader) list(ctx context.Context, rng *rand.Rand, cs *clientStats, n int, q itemQuery) {
	w := l.window(itemsTable)
	t0 := time.Now()
	var r rawPage
	err := l.r.c.do(ctx, "GET", apiPath("/objects/%s?pageSize=%d", itemType, n), l.r.c.token, nil, &r)
	w.hi = l.r.m.last()
	if !cs.done(ctx, "list", t0, err) {
		return
	}
	p, err := r.page()
	if err != nil {
		cs.fail("list", err)
		return
	}
	l.checkPage(rng, cs, "list", p, q, n, w, true)
}

// checkPage checks one page of items: its objects (whole, of one state,
// not stale), that each matches the query and they come in its order,
// that totalCount is the count of a state they may be of, and sometimes
// that a first page is the first page of such a state.
func (l *loader) checkPage(rng *rand.Rand, cs *clientStats, what string, p page, q itemQuery, n int, w span, first bool) {
	m := l.r.m
	sp, vs := m.checkObjects(itemType, p.Objects, w)
	if len(vs) > 0 {
		cs.violate(vs...)
		return
	}
	if len(p.Objects) > n {
		cs.violate(violationf(vPage, "%s: %d objects in a page of %d", what, len(p.Objects), n))
	}
	var prev *item
	for _, o := range p.Objects {
		id, _ := strconv.ParseInt(o["id"], 10, 64)
		stamp, _ := strconv.ParseInt(o["stamp"], 10, 64)
		m.mu.RLock()
		it := m.itemLocked(id, stamp)
		m.mu.RUnlock()
		if !q.match(it) {
			cs.violate(violationf(vPage, "%s: item %d (stamp %d) does not match", what, id, stamp))
		}
		if prev != nil && !inOrder(*prev, it, q.byVal) {
			cs.violate(violationf(vPage, "%s: item %d comes after item %d, out of order", what, id, prev.ID))
		}
		prev = &it
	}
	if q.count != nil && !m.countIn(sp, p.Total, q.count) {
		cs.violate(violationf(vCount, "%s: totalCount %d, which no state of %v has", what, p.Total, sp))
	}
	if !first || rng.IntN(exactEvery) != 0 {
		return
	}
	cs.exact++
	got := fmt.Sprint(idsOf(itemType, p.Objects))
	var tried []string
	for _, k := range m.itemStates(sp) {
		ids, total := m.firstPage(k, q.match, q.byVal, n)
		if fmt.Sprint(fmtIDs(ids)) == got && total == p.Total {
			return
		}
		tried = append(tried, fmt.Sprintf("state %d: %d of %d", k, len(ids), total))
	}
	cs.violate(violationf(vPage, "%s: page %s (totalCount %d) is the first page of no state of %v (%v)", what, shorten(got), p.Total, sp, tried))
}

func inOrder(a, b item, byVal bool) bool {
	if byVal && a.Val != b.Val {
		return a.Val > b.Val
	}
	return a.ID < b.ID
}

func shorten(s string) string {
	if len(s) > 200 {
		return s[:200] + "..."
	}
	return s
}

// aggregate checks counts by category (of the type, or of a union set):
// some state the answer may be of has them all.
func (l *loader) aggregate(ctx context.Context, rng *rand.Rand, cs *clientStats) {
	m := l.r.m
	w := l.window(itemsTable)
	t0 := time.Now()
	if rng.IntN(2) == 0 {
		agg, err := l.r.c.aggregate(ctx, apiPath("/objects/%s/aggregate", itemType), countByCat(nil))
		w.hi = m.last()
		if !cs.done(ctx, "aggregate", t0, err) {
			return
		}
		var got [categories]int64
		for g, ms := range agg {
			n, _ := strconv.ParseInt(ms["count"], 10, 64)
			if c := catIndex(g); c >= 0 && c < categories {
				got[c] = n
			}
		}
		if !m.countIn(w, 1, func(c *counts) int64 {
			if c.byCat == got {
				return 1
			}
			return 0
		}) {
			cs.violate(violationf(vCount, "aggregate count by cat: %v, which no state of %v has", got, w))
		}
		return
	}
	q, set := unionQuery(rng)
	agg, err := l.r.c.aggregate(ctx, apiPath("/objectSets/aggregate"), map[string]any{"objectSet": set,
		"aggregation": []any{map[string]any{"type": "count", "name": "count"}}, "groupBy": []any{}})
	w.hi = m.last()
	if !cs.done(ctx, "aggregate", t0, err) {
		return
	}
	n, _ := strconv.ParseInt(agg[""]["count"], 10, 64)
	if !m.countIn(w, n, q.count) {
		cs.violate(violationf(vCount, "aggregate count of %s: %d, which no state of %v has", q.desc, n, w))
	}
}

// absentIn reports whether some state of w lacks the key.
func (m *model) absentIn(typ string, key int64, w span) bool {
	m.mu.RLock()
	defer m.mu.RUnlock()
	hist := m.items
	if typ == groupType {
		hist = m.grps
	}
	if key <= 0 || key >= int64(len(hist)) {
		return true
	}
	h := hist[key]
	for k := max(w.lo, 1); k <= min(w.hi, int64(len(m.commits)-1)); k++ {
		if h.at(k) == 0 {
			return true
		}
	}
	return w.lo == 0 // before the first commit, nothing exists
}

// clientStats are one client's figures.
type clientStats struct {
	start     time.Time // of the load
	requests  atomic.Int64
	lat       map[string][]time.Duration
	errors    map[string]int
	firstErrs []string
	vcount    map[string]int
	samples   []violation
	exact     int
}

func (cs *clientStats) init() {
	cs.lat, cs.errors, cs.vcount = map[string][]time.Duration{}, map[string]int{}, map[string]int{}
}

// done records a request's latency or its error; it reports whether the
// answer is to be checked.
func (cs *clientStats) done(ctx context.Context, op string, t0 time.Time, err error) bool {
	if ctx.Err() != nil {
		return false // cut by the end of the load, not an answer
	}
	cs.requests.Add(1)
	if err != nil {
		cs.fail(op, err)
		return false
	}
	cs.lat[op] = append(cs.lat[op], time.Since(t0))
	return true
}

func (cs *clientStats) fail(op string, err error) {
	cs.errors[op]++
	if len(cs.firstErrs) < 5 {
		cs.firstErrs = append(cs.firstErrs, fmt.Sprintf("%s at %s of the load: %v", op, time.Since(cs.start).Round(time.Second), err))
	}
}

func (cs *clientStats) violate(vs ...violation) {
	for _, v := range vs {
		cs.vcount[v.Kind]++
		if len(cs.samples) < 5 {
			cs.samples = append(cs.samples, v)
		}
	}
}
