// Package restcatalog runs a real Iceberg REST catalog server for tests:
// Apache Iceberg's own REST catalog test fixture (RESTCatalogServer of
// iceberg-open-api, the server of the apache/iceberg-rest-fixture image and
// of Iceberg's REST compatibility kit), version IcebergVersion, from the
// jars .ci/install-restcatalog resolved from Maven Central. Its backend is
// Iceberg's JdbcCatalog on a SQLite file in a temporary directory; tables
// go on local disk, or into the S3 server of the tests (s3test) through
// Iceberg's S3FileIO.
//
//	srv := restcatalog.Must(t, restcatalog.Options{})  // skips without the jars unless CI=true
//	props := srv.Props()                              // type rest, uri
//
// The server answers the OAuth2 token endpoint (/v1/oauth/tokens, client
// credentials) and, with Options.VendCredentials, returns its S3 keys in
// each loaded table's config, as catalogs that vend storage credentials
// do. It checks no token: tests of refused tokens put a Gate in front.
//
// Shutdown stops the process and keeps the catalog and the tables; Restart
// starts it again on the same port, so that tests can take the catalog
// away under a running indexer.
package restcatalog

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ontoindex/ontoindex/internal/subprocess"
	"github.com/ontoindex/ontoindex/internal/testkit/jvmtest"
	"github.com/ontoindex/ontoindex/internal/testkit/s3test"
)

// IcebergVersion is the version of the server's Iceberg (pom.xml).
const IcebergVersion = "1.10.1"

// mainClass is the fixture's entry point.
const mainClass = "org.apache.iceberg.rest.RESTCatalogServer"

// Options configure Start. The zero value is a catalog with its tables on
// local disk.
type Options struct {
	// S3 and Bucket put the tables in s3://Bucket/warehouse of that server
	// (the bucket must exist), read and written by Iceberg's S3FileIO.
	S3     *s3test.Server
	Bucket string
	// VendCredentials makes the server return its S3 keys in each loaded
	// table's config (the fixture's include-credentials).
	VendCredentials bool
	// StartTimeout bounds a start (default 2m: a JVM on a loaded machine).
	StartTimeout time.Duration
}

// Server is a running REST catalog server.
type Server struct {
	java, classpath string
	dir             string // the SQLite catalog, the local warehouse, the log
	port            int
	env             []string
	warehouse       string
	timeout         time.Duration

	mu   sync.Mutex
	proc *subprocess.Process // nil when not running

	stopOnce sync.Once
	stopErr  error
}

// Start starts a server with an empty catalog on a free loopback port. It
// runs until Shutdown or Stop. The error wraps jvmtest.ErrNotInstalled
// when the jars or java are missing.
func Start(ctx context.Context, o Options) (_ *Server, err error) {
	cp, err := jvmtest.Classpath("restcatalog.classpath")
	if err != nil {
		return nil, err
	}
	java, err := jvmtest.Java()
	if err != nil {
		return nil, err
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = 2 * time.Minute
	}
	dir, err := os.MkdirTemp("", "restcatalog-")
	if err != nil {
		return nil, err
	}
	s := &Server{java: java, classpath: cp, dir: dir, timeout: o.StartTimeout}
	defer func() {
		if err != nil {
			_ = s.Stop()
		}
	}()
	s.warehouse = "file://" + filepath.Join(dir, "warehouse")
	// The fixture reads its catalog properties from CATALOG_* variables:
	// "__" is "-", "_" is ".".
	s.env = []string{
		"CATALOG_URI=jdbc:sqlite:file:" + filepath.Join(dir, "catalog.db"),
		"CATALOG_JDBC_SCHEMA__VERSION=V1",
	}
	if o.S3 != nil {
		if o.Bucket == "" {
			return nil, errors.New("restcatalog: Options.S3 without a Bucket")
		}
		access, secret := o.S3.Credentials()
		s.warehouse = "s3://" + o.Bucket + "/warehouse"
		s.env = append(s.env,
			"CATALOG_IO__IMPL=org.apache.iceberg.aws.s3.S3FileIO",
			"CATALOG_S3_ENDPOINT="+o.S3.Endpoint(),
			"CATALOG_S3_PATH__STYLE__ACCESS=true",
			"CATALOG_CLIENT_REGION="+o.S3.Region(),
			"CATALOG_S3_ACCESS__KEY__ID="+access,
			"CATALOG_S3_SECRET__ACCESS__KEY="+secret,
			// The AWS SDK's own chain, for what the properties leave out.
			"AWS_REGION="+o.S3.Region(),
		)
	}
	if o.VendCredentials {
		s.env = append(s.env, "CATALOG_INCLUDE__CREDENTIALS=true")
	}
	s.env = append(s.env, "CATALOG_WAREHOUSE="+s.warehouse)
	// The port is free when chosen but may be taken before the server
	// binds it; a few attempts make that race harmless.
	for attempt := 1; ; attempt++ {
		if s.port, err = freePort(); err != nil {
			return nil, err
		}
		err = s.start(ctx)
		if err == nil {
			return s, nil
		}
		if !errors.Is(err, errPortTaken) || attempt == 3 {
			return nil, err
		}
	}
}

// Must starts a server for a test and stops it when the test ends. Without
// the jars it skips the test, except on CI (CI=true), where it fails.
func Must(tb testing.TB, o Options) *Server {
	tb.Helper()
	s, err := Start(context.Background(), o)
	jvmtest.SkipUnlessInstalled(tb, "REST catalog server", err)
	tb.Cleanup(func() {
		if err := s.Stop(); err != nil {
			tb.Error(err)
		}
	})
	return s
}

var errPortTaken = errors.New("port taken")

func (s *Server) logFile() string { return filepath.Join(s.dir, "server.log") }

// start runs the server on s.port and waits until it answers.
func (s *Server) start(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	logf, err := os.OpenFile(s.logFile(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close() // the child holds its own descriptor
	// A small heap and the client compiler: it serves a few requests a
	// second on a shared two-core machine.
	cmd := exec.Command(s.java, "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
		"-cp", s.classpath, mainClass)
	cmd.Dir = s.dir
	cmd.Env = append(os.Environ(), append(s.env, "CATALOG_REST_PORT="+strconv.Itoa(s.port))...)
	cmd.Stdout, cmd.Stderr = logf, logf
	proc, err := subprocess.Start(cmd, subprocess.Options{Group: true})
	if err != nil {
		return fmt.Errorf("start the REST catalog server: %w", err)
	}
	s.mu.Lock()
	s.proc = proc
	s.mu.Unlock()
	client := &http.Client{Timeout: 2 * time.Second}
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-proc.Exited():
			tail := s.LogTail()
			if strings.Contains(tail, "Address already in use") {
				return fmt.Errorf("REST catalog server on port %d: %w", s.port, errPortTaken)
			}
			return fmt.Errorf("the REST catalog server exited during startup:\n%s", tail)
		case <-ctx.Done():
			s.kill()
			return fmt.Errorf("the REST catalog server did not answer in time: %w\n%s", ctx.Err(), s.LogTail())
		case <-tick.C:
		}
		if resp, err := client.Get(s.URI() + "/v1/config"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
	}
}

// Shutdown stops the server process and keeps its catalog and tables, for
// Restart. It returns once the process exited.
func (s *Server) Shutdown() error {
	s.mu.Lock()
	proc := s.proc
	s.proc = nil
	s.mu.Unlock()
	if proc != nil {
		_ = proc.Stop(syscall.SIGTERM, 20*time.Second) // how it exited does not matter
	}
	return nil
}

func (s *Server) kill() {
	s.mu.Lock()
	proc := s.proc
	s.proc = nil
	s.mu.Unlock()
	if proc != nil {
		proc.Kill()
	}
}

// Restart starts the server again on its port with its catalog; a running
// server is shut down first.
func (s *Server) Restart(ctx context.Context) error {
	if err := s.Shutdown(); err != nil {
		return err
	}
	return s.start(ctx)
}

// Stop shuts the server down and removes its directory. It may be called
// more than once; later calls return the first result.
func (s *Server) Stop() error {
	s.stopOnce.Do(func() {
		_ = s.Shutdown()
		if err := os.RemoveAll(s.dir); err != nil {
			s.stopErr = fmt.Errorf("remove the REST catalog's directory: %w", err)
		}
	})
	return s.stopErr
}

// URI is the catalog's base URL, the uri property of its clients.
func (s *Server) URI() string {
	return "http://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port))
}

// Port is the loopback TCP port the server listens on.
func (s *Server) Port() int { return s.port }

// Warehouse is where new tables go: file:///... or s3://bucket/warehouse.
func (s *Server) Warehouse() string { return s.warehouse }

// Props are an iceberg-go client's catalog properties: type rest and uri.
// Storage properties (an S3 endpoint, keys) are the caller's to add.
func (s *Server) Props() map[string]string {
	return map[string]string{"type": "rest", "uri": s.URI()}
}

// LogTail is the end of the server's log.
func (s *Server) LogTail() string {
	return subprocess.FileTail(s.logFile(), 3000)
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
