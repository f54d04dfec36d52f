//go:build integration_jvm

package main

import (
	"context"
	"strings"
	"testing"

	"github.com/ontoindex/ontoindex/indexer/daemon"
	"github.com/ontoindex/ontoindex/internal/testkit/daemontest"
	"github.com/ontoindex/ontoindex/internal/testkit/deploytest"
	"github.com/ontoindex/ontoindex/internal/testkit/peopletest"
)

// mustBuildFail runs `indexer build` with a config that must fail and
// returns what it printed; that must hold every part of want and no
// secret.
func mustBuildFail(tb testing.TB, cfg string, want []string, secrets ...string) string {
	tb.Helper()
	code, out, errOut := run("build", "--config", cfg)
	if code == exitOK {
		tb.Fatalf("build succeeded: %s", out)
	}
	text := out + errOut
	tb.Log(text)
	for _, w := range want {
		if !strings.Contains(text, w) {
			tb.Errorf("build output lacks %q:\n%s", w, text)
		}
	}
	for _, s := range secrets {
		if strings.Contains(text, s) {
			tb.Errorf("build output shows the secret %q:\n%s", s, text)
		}
	}
	return text
}

// TestREST_errors: a REST catalog that is down, an OAuth2 server that
// refuses the client, a catalog that refuses the token and a store that
// refuses a config without keys each fail the build with an error that
// names the catalog and what to check; the catalog back up, the build
// goes on.
func TestREST_errors(t *testing.T) {
	t.Run("gate", func(t *testing.T) {
		d := deploytest.MustREST(t, deploytest.RESTOptions{Gate: true})
		peopletest.Must(t, d.Warehouse, peopletest.Options{People: peopletest.Files(2, 5)})
		d.Setenv(t)
		cfg := d.MustConfig(t, "ontology.yaml", deploySections+peopletest.PeopleType)
		mustDeployBuild(t, cfg, exitOK)

		t.Run("client refused", func(t *testing.T) {
			t.Setenv(deploytest.EnvRESTCredential, deploytest.RESTClientID+":wrong-secret-1234")
			mustBuildFail(t, cfg, []string{"the OAuth2 server at " + d.Gate.TokenURI() + " refused the client of catalog warehouse (invalid_client"}, "wrong-secret-1234")
		})
		t.Run("token refused", func(t *testing.T) {
			const token = "not-a-token-5678"
			t.Setenv("LAKE_REST_TOKEN", token)
			bad := d.MustConfig(t, "token.yaml", deploySections+peopletest.PeopleType)
			text := strings.Replace(mustRead(t, bad), "credential:", "token: ${LAKE_REST_TOKEN}\n    unused-credential:", 1)
			mustFile(t, bad, text)
			mustBuildFail(t, bad, []string{"REST catalog warehouse at " + d.Gate.URI() + " refused the token", "NotAuthorizedException"}, token)
			if d.Gate.Refused() == 0 {
				t.Error("the gate refused no request")
			}
		})
	})
	// serve holds its catalog open: a token the server stops accepting
	// before it expires (revoked; a catalog whose signing keys changed on a
	// restart) costs one refused poll, then a new token, not the daemon.
	t.Run("token revoked under serve", func(t *testing.T) {
		d := deploytest.MustREST(t, deploytest.RESTOptions{Gate: true})
		tables := peopletest.Must(t, d.Warehouse, peopletest.Options{People: peopletest.Files(2, 5)})
		d.Setenv(t)
		cfg := d.MustConfig(t, "ontology.yaml", deploySections+peopletest.PeopleType)
		p := startServe(t, cfg)
		p.waitStatus(t, "People", "served", daemontest.UpToDate(tables.People))
		granted := len(d.Gate.Granted())
		d.Gate.RevokeAll()
		snap := d.Write(t, deploytest.Op{Table: peopletest.People, Kind: "append", Rows: peopletest.Rows(100, 3, "new")})
		p.waitStatus(t, "People", "the append after the revocation", func(st daemon.TypeStatus) bool {
			return st.CheckpointSnapshotID == snap && st.State == daemon.StateIdle
		})
		if n := len(d.Gate.Granted()); n <= granted {
			t.Errorf("no new token: %d granted before the revocation, %d after", granted, n)
		}
		if d.Gate.Refused() == 0 {
			t.Error("the gate refused no request with the revoked token")
		}
		p.stop(t)
	})
	t.Run("down", func(t *testing.T) {
		d := deploytest.MustREST(t, deploytest.RESTOptions{})
		peopletest.Must(t, d.Warehouse, peopletest.Options{People: peopletest.Files(2, 5)})
		cfg := d.MustConfig(t, "ontology.yaml", deploySections+peopletest.PeopleType)
		mustDeployBuild(t, cfg, exitOK)
		if err := d.Server.Shutdown(); err != nil {
			t.Fatal(err)
		}
		mustBuildFail(t, cfg, []string{"REST catalog warehouse at " + d.Server.URI() + " is unreachable (connection refused)"})
		if err := d.Server.Restart(context.Background()); err != nil {
			t.Fatal(err)
		}
		d.Write(t, deploytest.Op{Table: peopletest.People, Kind: "append", Rows: peopletest.Rows(100, 3, "new")})
		if r := mustDeployBuild(t, cfg, exitOK)["People"]; r.Upserts != 3 {
			t.Fatalf("build after the restart: %+v", r)
		}
	})
	// A config without the S3 keys and a catalog that vends none: the
	// build cannot read the table, so the one of TestREST that reads with
	// a config without keys does read with the keys its catalog vends.
	t.Run("no storage keys", func(t *testing.T) {
		d := deploytest.MustREST(t, deploytest.RESTOptions{S3: true})
		peopletest.Must(t, d.Warehouse, peopletest.Options{People: peopletest.Files(2, 5)})
		cfg := d.MustConfig(t, "ontology.yaml", deploySections+peopletest.PeopleType)
		text := mustRead(t, cfg)
		var kept []string
		for _, line := range strings.Split(text, "\n") {
			if !strings.Contains(line, "s3.access-key-id") && !strings.Contains(line, "s3.secret-access-key") {
				kept = append(kept, line)
			}
		}
		mustFile(t, cfg, strings.Join(kept, "\n"))
		mustBuildFail(t, cfg, []string{"table warehouse.ns.people", "s3://lake/warehouse/ns/people/metadata/", "get credentials"})
	})
}
