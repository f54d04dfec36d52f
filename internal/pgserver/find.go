package pgserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// ErrNotFound means that no PostgreSQL server binaries were found.
var ErrNotFound = errors.New("PostgreSQL server binaries (initdb, postgres) not found")

// debianRoot is where Debian and Ubuntu install the server binaries of
// each major version.
const debianRoot = "/usr/lib/postgresql"

// FindBinDir returns a directory holding initdb and postgres: dir itself
// when it is not empty, else the newest /usr/lib/postgresql/<version>/bin,
// else the directory of initdb on $PATH. The error wraps ErrNotFound when
// there is none.
func FindBinDir(dir string) (string, error) {
	if dir != "" {
		if !hasServer(dir) {
			return "", fmt.Errorf("%w in %s", ErrNotFound, dir)
		}
		return dir, nil
	}
	if ents, err := os.ReadDir(debianRoot); err == nil {
		var versions []float64
		names := map[float64]string{}
		for _, e := range ents {
			v, err := strconv.ParseFloat(e.Name(), 64)
			if err == nil && hasServer(filepath.Join(debianRoot, e.Name(), "bin")) {
				versions = append(versions, v)
				names[v] = e.Name()
			}
		}
		if len(versions) > 0 {
			return filepath.Join(debianRoot, names[slices.Max(versions)], "bin"), nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		// Resolve links, so that postgres is looked up next to the real
		// initdb (Debian links some binaries into /usr/bin and others not).
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		if d := filepath.Dir(p); hasServer(d) {
			return d, nil
		}
	}
	return "", fmt.Errorf("%w (looked in %s/*/bin and $PATH; on Debian: apt-get install postgresql)", ErrNotFound, debianRoot)
}

func hasServer(dir string) bool {
	for _, name := range []string{"initdb", "postgres"} {
		st, err := os.Stat(filepath.Join(dir, name))
		if err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
			return false
		}
	}
	return true
}

// serverVersion returns the version postgres --version reports ("15.18").
func serverVersion(ctx context.Context, binDir string) (string, error) {
	out, err := exec.CommandContext(ctx, filepath.Join(binDir, "postgres"), "--version").Output()
	if err != nil {
		return "", fmt.Errorf("postgres --version: %w", err)
	}
	// "postgres (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)"
	f := strings.Fields(string(out))
	if len(f) < 3 {
		return "", fmt.Errorf("postgres --version: unexpected output %q", out)
	}
	return f[2], nil
}
