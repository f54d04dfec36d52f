// Package sparktest runs Apache Spark for tests: PySpark (SparkVersion,
// from PyPI) with Iceberg's Spark runtime (IcebergVersion, from Maven
// Central), both installed by .ci/install-restcatalog. A Session is one
// SparkSession in a Python process, small (local[1], one shuffle
// partition, no UI), that runs SQL statements and returns their rows; it
// is slow to start (tens of seconds on two cores), so a test run starts
// one and shares it between its cases.
//
//	s := sparktest.Must(t, sparktest.Options{Catalogs: map[string]sparktest.Catalog{
//		"rest": sparktest.RESTCatalog(srv.URI())}})
//	res := s.MustSQL(t, "SELECT * FROM rest.ns.t VERSION AS OF 123")
//
// Spark writes Iceberg tables into any catalog it is given (a REST catalog,
// a hadoop warehouse), with the Iceberg SQL extensions on: MERGE INTO,
// UPDATE, DELETE, CALL <catalog>.system.rewrite_data_files(...) and the
// other procedures, and create_changelog_view. MustCreateTable makes a
// format-2 table whose row-level writes are copy-on-write or merge-on-read
// (position deletes), for sequences of either kind.
package sparktest

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ontoindex/ontoindex/internal/subprocess"
	"github.com/ontoindex/ontoindex/internal/testkit/jvmtest"
)

// The versions .ci/install-restcatalog installs.
const (
	SparkVersion   = "4.0.1"
	IcebergVersion = "1.10.1" // iceberg-spark-runtime-4.0_2.13
)

//go:embed driver.py
var driver []byte

// Catalog is a Spark catalog's properties (spark.sql.catalog.<name>.*).
type Catalog map[string]string

// RESTCatalog is an Iceberg REST catalog at uri.
func RESTCatalog(uri string) Catalog {
	return Catalog{"type": "rest", "uri": uri}
}

// HadoopCatalog is a hadoop warehouse in dir.
func HadoopCatalog(dir string) Catalog {
	return Catalog{"type": "hadoop", "warehouse": dir}
}

// Options configure Start.
type Options struct {
	// Catalogs are Iceberg catalogs by name (SparkCatalog).
	Catalogs map[string]Catalog
	// Conf is more Spark configuration.
	Conf map[string]string
	// StartTimeout bounds the start (default 5m: a loaded two-core machine).
	StartTimeout time.Duration
}

// Result is the columns and rows of a statement.
type Result struct {
	Columns []string
	Rows    [][]any // JSON values: integers int64, other numbers float64, decimals and times strings
}

// Maps are the rows as column-to-value maps.
func (r *Result) Maps() []map[string]any {
	out := make([]map[string]any, len(r.Rows))
	for i, row := range r.Rows {
		m := make(map[string]any, len(r.Columns))
		for j, c := range r.Columns {
			m[c] = row[j]
		}
		out[i] = m
	}
	return out
}

// Session is a running SparkSession.
type Session struct {
	Version string // Spark's

	dir     string
	proc    *subprocess.Process
	stdin   *os.File
	answers chan []byte
	readers sync.WaitGroup

	mu       sync.Mutex // one statement at a time
	stopOnce sync.Once
	stopErr  error
}

// Start starts a session. The error wraps jvmtest.ErrNotInstalled when
// PySpark or the runtime jar is missing.
func Start(ctx context.Context, o Options) (_ *Session, err error) {
	jar, err := jvmtest.Classpath("spark.classpath")
	if err != nil {
		return nil, err
	}
	cache, err := jvmtest.CacheDir()
	if err != nil {
		return nil, err
	}
	python := filepath.Join(cache, "spark-venv", "bin", "python")
	if _, err := os.Stat(python); err != nil {
		return nil, fmt.Errorf("%w: no %s", jvmtest.ErrNotInstalled, python)
	}
	if _, err := jvmtest.Java(); err != nil {
		return nil, err
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = 5 * time.Minute
	}
	dir, err := os.MkdirTemp("", "sparktest-")
	if err != nil {
		return nil, err
	}
	s := &Session{dir: dir, answers: make(chan []byte)}
	defer func() {
		if err != nil {
			_ = s.Stop()
		}
	}()
	script := filepath.Join(dir, "driver.py")
	if err := os.WriteFile(script, driver, 0o644); err != nil {
		return nil, err
	}
	conf, err := json.Marshal(sparkConf(jar, dir, o))
	if err != nil {
		return nil, err
	}
	answersRead, answersWrite, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer answersWrite.Close() // the child holds its own
	stdinRead, stdinWrite, err := os.Pipe()
	if err != nil {
		answersRead.Close()
		return nil, err
	}
	defer stdinRead.Close()
	s.stdin = stdinWrite
	logf, err := os.Create(filepath.Join(dir, "spark.log"))
	if err != nil {
		answersRead.Close()
		return nil, err
	}
	defer logf.Close()
	cmd := exec.Command(python, script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "SPARKTEST_CONF="+string(conf), "PYSPARK_PYTHON="+python,
		"SPARK_LOCAL_IP=127.0.0.1", "PYTHONUNBUFFERED=1")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdinRead, logf, logf
	cmd.ExtraFiles = []*os.File{answersWrite} // fd 3
	s.proc, err = subprocess.Start(cmd, subprocess.Options{Group: true})
	if err != nil {
		answersRead.Close()
		return nil, fmt.Errorf("start spark: %w", err)
	}
	s.readers.Add(1)
	go s.read(answersRead)
	ctx, cancel := context.WithTimeout(ctx, o.StartTimeout)
	defer cancel()
	line, err := s.answer(ctx)
	if err != nil {
		return nil, fmt.Errorf("start spark: %w", err)
	}
	var ready struct{ Ready string }
	if err := json.Unmarshal(line, &ready); err != nil || ready.Ready == "" {
		return nil, fmt.Errorf("start spark: first line %q", line)
	}
	s.Version = ready.Ready
	return s, nil
}

// sparkConf is the session's configuration: small, on loopback, Iceberg's
// runtime and SQL extensions, the catalogs.
func sparkConf(jar, dir string, o Options) map[string]string {
	conf := map[string]string{
		"spark.master":                    "local[1]",
		"spark.driver.memory":             "1g",
		"spark.driver.host":               "127.0.0.1",
		"spark.driver.bindAddress":        "127.0.0.1",
		"spark.ui.enabled":                "false",
		"spark.sql.shuffle.partitions":    "1",
		"spark.default.parallelism":       "1",
		"spark.sql.adaptive.enabled":      "false",
		"spark.sql.session.timeZone":      "UTC",
		"spark.local.dir":                 filepath.Join(dir, "local"),
		"spark.sql.warehouse.dir":         filepath.Join(dir, "spark-warehouse"),
		"spark.jars":                      jar,
		"spark.sql.extensions":            "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions",
		"spark.driver.extraJavaOptions":   "-XX:+UseSerialGC -Djava.net.preferIPv4Stack=true",
		"spark.sql.catalogImplementation": "in-memory",
	}
	for name, props := range o.Catalogs {
		conf["spark.sql.catalog."+name] = "org.apache.iceberg.spark.SparkCatalog"
		for k, v := range props {
			conf["spark.sql.catalog."+name+"."+k] = v
		}
	}
	maps.Copy(conf, o.Conf)
	return conf
}

// read passes the answer lines on until the pipe closes (the child
// exited), then closes the channel.
func (s *Session) read(r *os.File) {
	defer s.readers.Done()
	defer r.Close()
	defer close(s.answers)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 256<<20)
	for sc.Scan() {
		s.answers <- append([]byte(nil), sc.Bytes()...)
	}
}

// answer waits for the next answer line.
func (s *Session) answer(ctx context.Context) ([]byte, error) {
	select {
	case line, ok := <-s.answers:
		if !ok {
			<-s.proc.Exited()
			return nil, fmt.Errorf("spark exited (%v):\n%s", s.proc.Err(), s.LogTail())
		}
		return line, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("spark: %w\n%s", ctx.Err(), s.LogTail())
	}
}

// SQL runs statements in order and returns the rows of the last one. A
// statement's error is returned as Spark said it; a session whose ctx
// ends during a statement is broken (Stop it).
func (s *Session) SQL(ctx context.Context, stmts ...string) (*Result, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	req, err := json.Marshal(map[string][]string{"sql": stmts})
	if err != nil {
		return nil, err
	}
	if _, err := s.stdin.Write(append(req, '\n')); err != nil {
		return nil, fmt.Errorf("spark: send: %w", err)
	}
	line, err := s.answer(ctx)
	if err != nil {
		return nil, err
	}
	var a struct {
		Columns []string
		Rows    [][]any
		Error   *string
	}
	// Numbers as json.Number: snapshot ids and longs need all 64 bits.
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	if err := dec.Decode(&a); err != nil {
		return nil, fmt.Errorf("spark: answer %.200q: %w", line, err)
	}
	if a.Error != nil {
		return nil, errors.New("spark: " + *a.Error)
	}
	for _, row := range a.Rows {
		for i, v := range row {
			row[i] = numbers(v)
		}
	}
	return &Result{Columns: a.Columns, Rows: a.Rows}, nil
}

// numbers turns the json.Numbers in v into int64 (integers) or float64.
func numbers(v any) any {
	switch v := v.(type) {
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i
		}
		f, _ := v.Float64()
		return f
	case []any:
		for i, x := range v {
			v[i] = numbers(x)
		}
	case map[string]any:
		for k, x := range v {
			v[k] = numbers(x)
		}
	}
	return v
}

// MustSQL is SQL that fails the test on an error.
func (s *Session) MustSQL(tb testing.TB, stmts ...string) *Result {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	res, err := s.SQL(ctx, stmts...)
	if err != nil {
		tb.Fatalf("%s: %v", strings.Join(stmts, "; "), err)
	}
	return res
}

// Stop ends the session: its input closed, the process given a minute to
// stop Spark, then killed; its directory removed. It may be called more
// than once.
func (s *Session) Stop() error {
	s.stopOnce.Do(func() {
		if s.stdin != nil {
			_ = s.stdin.Close()
		}
		if s.proc != nil {
			select {
			case <-s.proc.Exited():
			case <-time.After(time.Minute):
				_ = s.proc.Stop(syscall.SIGTERM, 10*time.Second)
			}
			// The child is gone, so the pipe closes: drain what the
			// reader still holds until it closes the channel.
			for range s.answers {
			}
			s.readers.Wait()
		}
		if err := os.RemoveAll(s.dir); err != nil {
			s.stopErr = fmt.Errorf("remove the spark session's directory: %w", err)
		}
	})
	return s.stopErr
}

// Must starts a session for a test and stops it when the test ends.
// Without PySpark or the runtime it skips, except on CI (CI=true).
func Must(tb testing.TB, o Options) *Session {
	tb.Helper()
	s, err := Start(context.Background(), o)
	jvmtest.SkipUnlessInstalled(tb, "Spark", err)
	tb.Cleanup(func() {
		if err := s.Stop(); err != nil {
			tb.Error(err)
		}
	})
	return s
}

// LogTail is the end of Spark's log.
func (s *Session) LogTail() string {
	return subprocess.FileTail(filepath.Join(s.dir, "spark.log"), 4000)
}
