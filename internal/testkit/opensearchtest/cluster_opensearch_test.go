//go:build integration_opensearch

package opensearchtest

import (
	"fmt"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestCluster_oneNode starts one node and drives what the OpenSearch
// backend relies on: bulk writes with external versions (an older or equal
// version refused, a delete's tombstone refusing an older write), search,
// an alias swapped from one index to another in one request, and each
// module the launcher loads.
func TestCluster_oneNode(t *testing.T) {
	start := time.Now()
	c := Must(t, Options{})
	t.Logf("one node green in %s", time.Since(start).Round(100*time.Millisecond))

	t.Run("version and modules", func(t *testing.T) {
		var root struct {
			Version struct {
				Number string `json:"number"`
			} `json:"version"`
		}
		c.MustDoNode(t, 0, http.MethodGet, "/", nil, http.StatusOK, &root)
		if root.Version.Number != Version {
			t.Errorf("version %q, want %q", root.Version.Number, Version)
		}
		var info struct {
			Nodes map[string]struct {
				Plugins []struct {
					Classname string `json:"classname"`
				} `json:"plugins"`
			} `json:"nodes"`
		}
		c.MustDoNode(t, 0, http.MethodGet, "/_nodes/plugins", nil, http.StatusOK, &info)
		var loaded []string
		for _, n := range info.Nodes {
			for _, p := range n.Plugins {
				loaded = append(loaded, p.Classname)
			}
		}
		for _, m := range modules() {
			if !slices.Contains(loaded, m) {
				t.Errorf("module %s not loaded; plugins: %v", m, loaded)
			}
		}
	})

	mustCreateIndex(t, c, "flights-g1", 1, 0)
	t.Run("external versions", func(t *testing.T) {
		got := mustBulk(t, c, 0, "flights-g1",
			index("a", 5, 1), index("b", 5, 2), index("c", 3, 3))
		wantStatuses(t, got, 201, 201, 201)
		got = mustBulk(t, c, 0, "flights-g1",
			index("a", 4, 10), // older: refused
			index("a", 5, 11), // the same: refused too
			index("b", 6, 20), // newer: written
			remove("c", 4),    // a delete, newer
			index("d", 1, 4))
		wantStatuses(t, got, 409, 409, 200, 200, 201)
		if !strings.Contains(got[0].Error.Type, "version_conflict") {
			t.Errorf("older write refused with %q, want a version conflict", got[0].Error.Type)
		}
		// The delete's tombstone (kept index.gc_deletes) refuses an older
		// write of the deleted document; a newer one brings it back.
		got = mustBulk(t, c, 0, "flights-g1", index("c", 4, 30), index("c", 2, 31), index("e", 1, 5))
		wantStatuses(t, got, 409, 409, 201)
	})

	t.Run("search", func(t *testing.T) {
		hits := mustSearch(t, c, 0, "flights-g1", map[string]any{
			"query": map[string]any{"range": map[string]any{"n": map[string]any{"gte": 2}}},
			"sort":  []any{map[string]any{"id": "asc"}},
		})
		want := []hit{{Index: "flights-g1", ID: "b", Version: 6, N: 20}, {Index: "flights-g1", ID: "d", Version: 1, N: 4}, {Index: "flights-g1", ID: "e", Version: 1, N: 5}}
		if !slices.Equal(hits, want) {
			t.Errorf("hits %+v, want %+v", hits, want)
		}
		all := mustSearch(t, c, 0, "flights-g1", map[string]any{"sort": []any{map[string]any{"id": "asc"}}})
		if ids := hitIDs(all); !slices.Equal(ids, []string{"a", "b", "d", "e"}) {
			t.Errorf("ids %v, want a b d e (c deleted)", ids)
		} else if all[0].N != 1 || all[0].Version != 5 {
			t.Errorf("a is %+v, want n 1 at version 5 (the older writes refused)", all[0])
		}
	})

	t.Run("alias swap", func(t *testing.T) {
		c.MustDoNode(t, 0, http.MethodPost, "/_aliases", map[string]any{"actions": []any{
			map[string]any{"add": map[string]any{"index": "flights-g1", "alias": "flights"}},
		}}, http.StatusOK, nil)
		if ids := hitIDs(mustSearch(t, c, 0, "flights", nil)); len(ids) != 4 {
			t.Fatalf("alias on g1: %v, want 4 objects", ids)
		}
		mustCreateIndex(t, c, "flights-g2", 1, 0)
		wantStatuses(t, mustBulk(t, c, 0, "flights-g2", index("x", 7, 1), index("y", 7, 2)), 201, 201)
		c.MustDoNode(t, 0, http.MethodPost, "/_aliases", map[string]any{"actions": []any{
			map[string]any{"remove": map[string]any{"index": "flights-g1", "alias": "flights"}},
			map[string]any{"add": map[string]any{"index": "flights-g2", "alias": "flights"}},
		}}, http.StatusOK, nil)
		hits := mustSearch(t, c, 0, "flights", map[string]any{"sort": []any{map[string]any{"id": "asc"}}})
		want := []hit{{Index: "flights-g2", ID: "x", Version: 7, N: 1}, {Index: "flights-g2", ID: "y", Version: 7, N: 2}}
		if !slices.Equal(hits, want) {
			t.Errorf("alias after the swap: %+v, want %+v", hits, want)
		}
		var aliases map[string]any
		c.MustDoNode(t, 0, http.MethodGet, "/_alias/flights", nil, http.StatusOK, &aliases)
		if len(aliases) != 1 || aliases["flights-g2"] == nil {
			t.Errorf("flights is an alias of %v, want flights-g2 alone", aliases)
		}
	})

	t.Run("modules", func(t *testing.T) {
		// analysis-common: asciifolding.
		var analyzed struct {
			Tokens []struct {
				Token string `json:"token"`
			} `json:"tokens"`
		}
		c.MustDoNode(t, 0, http.MethodPost, "/_analyze", map[string]any{
			"tokenizer": "standard", "filter": []string{"lowercase", "asciifolding"}, "text": "Crème Brûlée",
		}, http.StatusOK, &analyzed)
		if len(analyzed.Tokens) != 2 || analyzed.Tokens[0].Token != "creme" || analyzed.Tokens[1].Token != "brulee" {
			t.Errorf("tokens %+v, want creme brulee", analyzed.Tokens)
		}
		// mapper-extras: scaled_float.
		c.MustDoNode(t, 0, http.MethodPut, "/prices", map[string]any{"mappings": map[string]any{"properties": map[string]any{
			"price": map[string]any{"type": "scaled_float", "scaling_factor": 100},
		}}}, http.StatusOK, nil)
		// lang-painless: a script field.
		var scripted struct {
			Hits struct {
				Hits []struct {
					Fields map[string][]float64 `json:"fields"`
				} `json:"hits"`
			} `json:"hits"`
		}
		c.MustDoNode(t, 0, http.MethodPost, "/flights-g2/_search", map[string]any{
			"sort":          []any{map[string]any{"id": "asc"}},
			"script_fields": map[string]any{"twice": map[string]any{"script": map[string]any{"lang": "painless", "source": "doc['n'].value * 2"}}},
		}, http.StatusOK, &scripted)
		var twice []float64
		for _, h := range scripted.Hits.Hits {
			twice = append(twice, h.Fields["twice"]...)
		}
		if !slices.Equal(twice, []float64{2, 4}) {
			t.Errorf("painless doc['n'].value * 2: %v, want [2 4]", twice)
		}
		// geo: a geo_shape field, and the geo_shape query (which needs JTS
		// and Spatial4j on the classpath besides the module).
		c.MustDoNode(t, 0, http.MethodPut, "/areas", map[string]any{"mappings": map[string]any{"properties": map[string]any{
			"area": map[string]any{"type": "geo_shape"},
		}}}, http.StatusOK, nil)
		c.MustDoNode(t, 0, http.MethodPut, "/areas/_doc/1?refresh=true", map[string]any{"area": map[string]any{
			"type": "LineString", "coordinates": [][]float64{{0, 0}, {10, 10}},
		}}, http.StatusCreated, nil)
		var shapes struct {
			Hits struct {
				Total struct {
					Value int `json:"value"`
				} `json:"total"`
			} `json:"hits"`
		}
		for _, tc := range []struct {
			box  [][]float64
			want int
		}{{[][]float64{{4, 6}, {6, 4}}, 1}, {[][]float64{{6, 4}, {8, 2}}, 0}} {
			c.MustDoNode(t, 0, http.MethodPost, "/areas/_search", map[string]any{"query": map[string]any{"geo_shape": map[string]any{
				"area": map[string]any{"relation": "intersects", "shape": map[string]any{"type": "envelope", "coordinates": tc.box}},
			}}}, http.StatusOK, &shapes)
			if shapes.Hits.Total.Value != tc.want {
				t.Errorf("geo_shape intersects %v: %d hits, want %d", tc.box, shapes.Hits.Total.Value, tc.want)
			}
		}
		// reindex.
		var reindexed struct {
			Created int `json:"created"`
		}
		c.MustDoNode(t, 0, http.MethodPost, "/_reindex?refresh=true", map[string]any{
			"source": map[string]any{"index": "flights-g2"}, "dest": map[string]any{"index": "flights-copy"},
		}, http.StatusOK, &reindexed)
		if reindexed.Created != 2 {
			t.Errorf("reindex created %d, want 2", reindexed.Created)
		}
	})
}

// TestCluster_threeNodes starts three nodes on loopback: they form one
// cluster, an index of three shards with one replica each goes green with
// every copy of a shard on a different node, and what is written through
// one node is read through another.
func TestCluster_threeNodes(t *testing.T) {
	start := time.Now()
	c := Must(t, Options{Nodes: 3})
	t.Logf("three nodes green in %s", time.Since(start).Round(100*time.Millisecond))

	var nodes []struct {
		Name          string `json:"name"`
		ClusterManger string `json:"cluster_manager"`
	}
	c.MustDoNode(t, 1, http.MethodGet, "/_cat/nodes?format=json&h=name,cluster_manager", nil, http.StatusOK, &nodes)
	var names []string
	managers := 0
	for _, n := range nodes {
		names = append(names, n.Name)
		if n.ClusterManger == "*" {
			managers++
		}
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"node-0", "node-1", "node-2"}) || managers != 1 {
		t.Fatalf("nodes %+v, want node-0..2 with one elected cluster manager", nodes)
	}

	mustCreateIndex(t, c, "flights", 3, 1)
	if err := c.WaitHealth(t.Context(), "green"); err != nil {
		t.Fatal(err)
	}
	var shards []struct {
		Shard  string `json:"shard"`
		Prirep string `json:"prirep"`
		State  string `json:"state"`
		Node   string `json:"node"`
	}
	c.MustDoNode(t, 2, http.MethodGet, "/_cat/shards/flights?format=json&h=shard,prirep,state,node", nil, http.StatusOK, &shards)
	copies := map[string][]string{} // shard: the nodes of its copies
	for _, s := range shards {
		if s.State != "STARTED" {
			t.Errorf("shard %s %s is %s on %q", s.Shard, s.Prirep, s.State, s.Node)
		}
		copies[s.Shard] = append(copies[s.Shard], s.Node)
	}
	if len(shards) != 6 || len(copies) != 3 {
		t.Fatalf("shards %+v, want 3 primaries and 3 replicas", shards)
	}
	for shard, on := range copies {
		if len(on) != 2 || on[0] == on[1] {
			t.Errorf("shard %s has copies on %v, want two nodes", shard, on)
		}
	}

	var docs []string
	for i := range 30 {
		docs = append(docs, index(fmt.Sprintf("o%02d", i), 3, i))
	}
	wantStatuses(t, mustBulk(t, c, 0, "flights", docs...), slices.Repeat([]int{201}, 30)...)
	wantStatuses(t, mustBulk(t, c, 1, "flights", index("o07", 2, 700), index("o08", 4, 800)), 409, 200)
	hits := mustSearch(t, c, 2, "flights", map[string]any{"size": 100, "sort": []any{map[string]any{"id": "asc"}}})
	if len(hits) != 30 || hits[7].N != 7 || hits[8].N != 800 || hits[8].Version != 4 {
		t.Errorf("through node-2: %d hits (o07 %+v, o08 %+v), want 30 with o07 kept at version 3 and o08 at version 4", len(hits), at(hits, 7), at(hits, 8))
	}
}

// TestCluster_Restart kills a node of three (SIGKILL) that holds a copy
// of every shard: the others go on reading and writing its shards, and
// the node started again over its data, on its ports, joins the cluster
// and serves what was written while it was down.
func TestCluster_Restart(t *testing.T) {
	c := Must(t, Options{Nodes: 3})
	// One shard, a copy on every node: whichever the victim, it holds one.
	mustCreateIndex(t, c, "flights", 1, 2)
	if err := c.WaitHealth(t.Context(), "green"); err != nil {
		t.Fatal(err)
	}
	wantStatuses(t, mustBulk(t, c, 0, "flights", index("a", 1, 1), index("b", 1, 2)), 201, 201)
	victim, err := c.Manager(t.Context(), 1)
	if err != nil {
		t.Fatal(err)
	}
	other := (victim + 1) % 3
	if err := c.Kill(victim); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.DoNode(t.Context(), victim, http.MethodGet, "/", nil); err == nil {
		t.Fatalf("node-%d answers after it was killed", victim)
	}
	if err := c.Kill(victim); err == nil {
		t.Error("a killed node killed again without an error")
	}
	// A write waits for a cluster manager elected among the two others.
	wantStatuses(t, mustBulk(t, c, other, "flights", index("b", 2, 20), remove("a", 2)), 200, 200)
	start := time.Now()
	if err := c.Restart(t.Context(), victim); err != nil {
		t.Fatal(err)
	}
	t.Logf("node-%d (the cluster manager) rejoined in %s", victim, time.Since(start).Round(100*time.Millisecond))
	if err := c.WaitHealth(t.Context(), "green"); err != nil {
		t.Fatal(err)
	}
	// Preference _local reads the copy of the node asked.
	var answer struct {
		Hits struct {
			Hits []struct {
				ID     string `json:"_id"`
				Source struct {
					N int `json:"n"`
				} `json:"_source"`
			} `json:"hits"`
		} `json:"hits"`
	}
	c.MustDoNode(t, victim, http.MethodGet, "/flights/_search?preference=_local", nil, http.StatusOK, &answer)
	if h := answer.Hits.Hits; len(h) != 1 || h[0].ID != "b" || h[0].Source.N != 20 {
		t.Errorf("node-%d's copy after the restart: %+v, want b with n 20 alone", victim, h)
	}
}

// TestCluster_profile starts a node of each profile, and one on a
// processor of its own, and reads back what the node says of its JVM: its
// collectors, its compiler flags and the processors its thread pools are
// sized by, and what the kernel says of the processors it may run on.
func TestCluster_profile(t *testing.T) {
	for _, tc := range []struct {
		name       string
		profile    Profile
		cpus       string
		collector  string
		processors int
		clientOnly bool // -XX:TieredStopAtLevel=1
	}{
		{"test", ProfileTest, "", "Copy", 1, true},
		{"bench", ProfileBench, "", "G1 Young Generation", runtime.NumCPU(), false},
		{"bench on processor 0", ProfileBench, "0", "G1 Young Generation", 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Must(t, Options{HeapMB: 256, Profile: tc.profile, CPUs: tc.cpus})
			var info struct {
				Nodes map[string]struct {
					OS struct {
						AllocatedProcessors int `json:"allocated_processors"`
					} `json:"os"`
					JVM struct {
						GCCollectors   []string `json:"gc_collectors"`
						InputArguments []string `json:"input_arguments"`
					} `json:"jvm"`
				} `json:"nodes"`
			}
			c.MustDoNode(t, 0, http.MethodGet, "/_nodes/_local/os,jvm", nil, http.StatusOK, &info)
			for _, n := range info.Nodes {
				if n.OS.AllocatedProcessors != tc.processors {
					t.Errorf("allocated processors %d, want %d", n.OS.AllocatedProcessors, tc.processors)
				}
				if !slices.Contains(n.JVM.GCCollectors, tc.collector) {
					t.Errorf("collectors %v, want %s among them", n.JVM.GCCollectors, tc.collector)
				}
				if got := slices.Contains(n.JVM.InputArguments, "-XX:TieredStopAtLevel=1"); got != tc.clientOnly {
					t.Errorf("client compiler only: %v, want %v (%v)", got, tc.clientOnly, n.JVM.InputArguments)
				}
			}
			if tc.cpus != "" {
				status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", c.nodes[0].process().PID()))
				if err != nil {
					t.Fatal(err)
				}
				if want := "Cpus_allowed_list:\t" + tc.cpus + "\n"; !strings.Contains(string(status), want) {
					t.Errorf("the JVM's status has no %q:\n%s", want, status)
				}
			}
		})
	}
}
