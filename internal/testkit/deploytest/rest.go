package deploytest

import (
	"context"
	"maps"
	"testing"

	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
	"github.com/ontoindex/ontoindex/internal/testkit/restcatalog"
	"github.com/ontoindex/ontoindex/internal/testkit/s3test"

	_ "github.com/apache/iceberg-go/catalog/rest"
)

// The REST deployments (MustREST; not in Kinds: they need the JVM test
// target's REST catalog server).
const (
	RESTLocal Kind = "rest+local"
	RESTS3    Kind = "rest+s3"
)

// Environment variables of the REST deployments' configs.
const (
	EnvRESTCredential = "LAKE_REST_CREDENTIAL" // client-id:client-secret
)

// RESTOptions shape a REST deployment.
type RESTOptions struct {
	// S3 puts the tables in the S3 server (RESTS3); else on local disk.
	S3 bool
	// Vend makes the catalog vend its S3 keys with each table, and leaves
	// them out of the config: ontoindex reads with the vended keys only.
	Vend bool
	// Gate puts a restcatalog.Gate in front of the catalog: the config
	// authenticates with OAuth2 client credentials (credential,
	// oauth2-server-uri, scope), the test's own handle too.
	Gate bool
}

// REST is a REST deployment: the Deployment, its server and its gate.
type REST struct {
	*Deployment
	Server *restcatalog.Server
	Gate   *restcatalog.Gate // with RESTOptions.Gate
}

// The OAuth2 client of a gated REST deployment.
const (
	RESTClientID = "ontoindex"
	RESTScope    = "catalog:read"
)

// MustREST stands up a REST catalog deployment for the test: Iceberg's
// REST catalog server (restcatalog), its tables on local disk or in the S3
// server. Without the server's jars it skips the test, except on CI.
func MustREST(tb testing.TB, o RESTOptions) *REST {
	tb.Helper()
	ctx := context.Background()
	d := &Deployment{Kind: RESTLocal, Dir: tb.TempDir(), env: map[string]string{}}
	var so restcatalog.Options
	if o.S3 {
		d.Kind = RESTS3
		// No AWS SDK of the tests asks the EC2 metadata service (off
		// loopback) for credentials when a config has none.
		tb.Setenv("AWS_EC2_METADATA_DISABLED", "true")
		d.S3 = s3test.Must(tb, s3test.Options{})
		d.S3.MustBucket(tb, Bucket)
		so = restcatalog.Options{S3: d.S3, Bucket: Bucket, VendCredentials: o.Vend}
	}
	srv := restcatalog.Must(tb, so)
	r := &REST{Deployment: d, Server: srv}
	d.props = map[string]string{"type": "rest", "uri": srv.URI()}
	if o.Gate {
		secret := "rest-secret-" + randomHex(8)
		r.Gate = restcatalog.MustGate(tb, srv, RESTClientID, secret, RESTScope)
		d.env[EnvRESTCredential] = RESTClientID + ":" + secret
		d.props["uri"] = r.Gate.URI()
		d.props["credential"] = "${" + EnvRESTCredential + "}"
		d.props["oauth2-server-uri"] = r.Gate.TokenURI()
		d.props["scope"] = RESTScope
	}
	// The test's own handle writes with the S3 keys; the config has them
	// only when the catalog does not vend them.
	own := map[string]string{}
	if o.S3 {
		access, secret := d.S3.Credentials()
		d.env[EnvS3AccessKey], d.env[EnvS3SecretKey] = access, secret
		d.props["s3.endpoint"] = d.S3.Endpoint()
		d.props["s3.region"] = d.S3.Region()
		d.props["s3.force-virtual-addressing"] = "false"
		own["s3.access-key-id"], own["s3.secret-access-key"] = access, secret
		if !o.Vend {
			d.props["s3.access-key-id"] = "${" + EnvS3AccessKey + "}"
			d.props["s3.secret-access-key"] = "${" + EnvS3SecretKey + "}"
		}
	}
	props := d.Props()
	maps.Copy(props, own)
	w, err := icebergtest.OpenWarehouse(ctx, CatalogName, props)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = w.Close() })
	d.Warehouse = w
	return r
}
