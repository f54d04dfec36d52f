// Package jvmtest finds what .ci/install-restcatalog and
// .ci/install-opensearch installed for the JVM test targets: their cache
// directory, the classpaths they resolved with Maven and java. The REST
// catalog server (restcatalog), Spark (sparktest) and OpenSearch
// (opensearchtest) start from there.
package jvmtest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// ErrNotInstalled means that the install script of the JVM tests has not
// run (or java is missing): they cannot start their servers.
var ErrNotInstalled = errors.New("the JVM test tools are not installed (run .ci/install-restcatalog, or .ci/install-opensearch for OpenSearch)")

// CacheDir is where the JVM install scripts install: $ONTOINDEX_JVM_CACHE,
// else ontoindex-jvm in the user's cache directory.
func CacheDir() (string, error) {
	if d := os.Getenv("ONTOINDEX_JVM_CACHE"); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("the JVM test cache: %w", err)
	}
	return filepath.Join(d, "ontoindex-jvm"), nil
}

// Classpath reads the classpath file name of the cache (restcatalog.classpath,
// spark.classpath, opensearch.classpath). The error wraps ErrNotInstalled when it is missing.
func Classpath(name string) (string, error) {
	dir, err := CacheDir()
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, name)
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("%w: no %s", ErrNotInstalled, path)
	}
	if err != nil {
		return "", err
	}
	cp := strings.TrimSpace(string(b))
	if cp == "" {
		return "", fmt.Errorf("%w: %s is empty", ErrNotInstalled, path)
	}
	return cp, nil
}

// Java is the java command: $JAVA_HOME/bin/java, else java on $PATH.
func Java() (string, error) {
	if h := os.Getenv("JAVA_HOME"); h != "" {
		p := filepath.Join(h, "bin", "java")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	p, err := exec.LookPath("java")
	if err != nil {
		return "", fmt.Errorf("%w: no java on $PATH", ErrNotInstalled)
	}
	return p, nil
}

// SkipUnlessInstalled skips the test when err wraps ErrNotInstalled, except
// on CI (CI=true), where the JVM target must run: there it fails. Other
// errors fail the test.
func SkipUnlessInstalled(tb testing.TB, what string, err error) {
	tb.Helper()
	if err == nil {
		return
	}
	if errors.Is(err, ErrNotInstalled) && os.Getenv("CI") != "true" {
		tb.Skipf("no %s: %v", what, err)
	}
	tb.Fatalf("start %s: %v", what, err)
}
