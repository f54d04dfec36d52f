package searchbench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"time"

	"github.com/ontoindex/ontoindex/internal/benchdata"
)

// RunInterface runs `ontolab bench interface`: a search over an interface
// implemented by two types of Rows/2 objects each against the same search
// over one type of Rows objects, in the same server and the same run. It
// writes the customers table and its two halves (interface_queries.go),
// serves them with `indexer serve --build`, checks that every query
// answers the same ids (or counts) through the interface as through the
// one type, and measures each query on both sides in alternating rounds,
// as Run does. o.FloorBin, o.PostgresBinDir and o.Logger are not used. It returns
// a *MismatchError, before measuring anything, when the sides disagree.
func RunInterface(ctx context.Context, o Options) (*InterfaceReport, error) {
	if o.Rows < 1000 || o.Files < 1 || o.Files > o.Rows/2 || o.Clients < 1 || o.Duration <= 0 || o.Warmup < 0 || o.Rounds < 1 || o.Rounds > 16 || o.ServeBin == "" {
		return nil, fmt.Errorf("searchbench: bad options: rows %d (>= 1000), files %d (1..rows/2), clients %d (>= 1), duration %s (> 0), warmup %s, rounds %d (1..16), serve binary %q",
			o.Rows, o.Files, o.Clients, o.Duration, o.Warmup, o.Rounds, o.ServeBin)
	}
	qs := ifaceQueries(o.Rows)
	measure, err := selectIfaceQueries(qs, o.Queries)
	if err != nil {
		return nil, err
	}
	progress, say := progressOf(o.Progress)
	work, removeWork, err := WorkDir(o.Dir, "indexer-bench-interface-")
	if err != nil {
		return nil, err
	}
	defer removeWork()
	rep := &InterfaceReport{Rows: o.Rows, Files: o.Files, Clients: o.Clients, CPUs: runtime.NumCPU(), Seed: o.Seed,
		DurationSeconds: o.Duration.Seconds(), WarmupSeconds: o.Warmup.Seconds(), Rounds: o.Rounds,
		Binary: o.ServeBin, Version: serverVersion(ctx, o.ServeBin, o.ServeEnv)}

	half := o.Rows / 2
	say("writing %d customers into one table of %d files and the same rows into two tables of %d and %d (%d files each)", o.Rows, o.Files, half, o.Rows-half, max(1, o.Files/2))
	start := time.Now()
	tables := []struct {
		ident          string
		from, n, files int
	}{
		{benchdata.CustomersIdent, 0, o.Rows, o.Files},
		{lowIdent, 0, half, max(1, o.Files/2)},
		{highIdent, half, o.Rows - half, max(1, o.Files/2)},
	}
	for _, t := range tables {
		if _, err := benchdata.WriteCustomerRange(ctx, work, t.ident, o.Seed, t.from, t.n, t.files); err != nil {
			return nil, err
		}
	}
	rep.WriteTableSeconds = time.Since(start).Seconds()
	cfgPath, err := writeConfig(work, interfaceConfig())
	if err != nil {
		return nil, err
	}
	say("starting %s serve --build", o.ServeBin)
	start = time.Now()
	srv, err := startOntoindex(ctx, o.ServeBin, o.ServeEnv, cfgPath, progress)
	if err != nil {
		return nil, err
	}
	defer srv.stop()
	rep.SearchableSeconds = time.Since(start).Seconds()
	rep.Objects = map[string]int64{}
	for _, typ := range []struct {
		name string
		want int
	}{{objectType, o.Rows}, {lowType, half}, {highType, o.Rows - half}} {
		n, err := srv.objects(ctx, typ.name)
		if err != nil {
			return nil, err
		}
		if n != int64(typ.want) {
			return nil, fmt.Errorf("ontoindex serves %d objects of %s, want %d", n, typ.name, typ.want)
		}
		rep.Objects[typ.name] = n
	}
	say("ontoindex searchable after %.1f s", rep.SearchableSeconds)
	client := newOntoClient(srv.base, o.Clients)
	defer client.close()

	say("checking that the interface and the one type answer alike")
	if err := verifyInterface(ctx, qs, client, o.Seed); err != nil {
		return nil, err
	}
	cpu := func() float64 { return procCPUSeconds(srv.pid()) }
	for i, q := range qs {
		if !measure[q.id] {
			continue
		}
		sideOf := func(c ifaceCall) side {
			return side{cpu: cpu, call: func(ctx context.Context, r *rand.Rand) error {
				_, _, err := c(ctx, client, q.gen(r), "")
				return err
			}}
		}
		say("measuring %s (%d rounds)", q.name, o.Rounds)
		st, err := rounds(ctx, o, uint64(i), []side{sideOf(q.one), sideOf(q.iface)})
		if err != nil {
			return nil, err
		}
		rep.Queries = append(rep.Queries, InterfaceQueryReport{ID: q.id, Name: q.name, Asked: q.description, OneType: st[0], Interface: st[1]})
	}
	rep.PeakRSSMiB = procStatusMiB(srv.pid(), "VmHWM")
	rep.addTargets()
	return rep, nil
}

// verifyInterface asks every query a few times of both sides and compares
// the answers: the same ids in the same order over checkPages pages and
// the same totals, or the same counts.
func verifyInterface(ctx context.Context, qs []ifaceQuery, c *ontoClient, seed uint64) error {
	var bad []string
	for i, q := range qs {
		r := rand.New(rand.NewPCG(seed, 1<<40|uint64(i)))
		for range verifyRounds {
			p := q.gen(r)
			one, err := answer(ctx, c, q.one, p, q.paged)
			if err != nil {
				return fmt.Errorf("%s on %s (%+v): %w", q.name, objectType, p, err)
			}
			iface, err := answer(ctx, c, q.iface, p, q.paged)
			if err != nil {
				return fmt.Errorf("%s on %s (%+v): %w", q.name, clientInterface, p, err)
			}
			if d := compareAnswers(one, iface); d != "" {
				bad = append(bad, fmt.Sprintf("%s (%+v): %s", q.name, p, d))
			}
		}
	}
	if len(bad) > 0 {
		return &MismatchError{Mismatches: bad}
	}
	return nil
}

// selectIfaceQueries returns the ids of qs to measure: those of want, or
// all of them when want is empty.
func selectIfaceQueries(qs []ifaceQuery, want []string) (map[string]bool, error) {
	ids := make([]query, 0, len(qs))
	for _, q := range qs {
		ids = append(ids, query{id: q.id})
	}
	return selectQueries(ids, want)
}
