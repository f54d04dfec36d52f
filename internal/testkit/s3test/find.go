package s3test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// ErrNotFound means that the versitygw binary was not found.
var ErrNotFound = errors.New("versitygw (the S3 server of the tests) not found")

// Install is the command that installs the version the tests use.
const Install = "go install github.com/versity/versitygw/cmd/versitygw@v1.8.0"

// FindBinary returns the path of versitygw: on $PATH, else in $GOBIN, else
// in the bin directory of each $GOPATH entry (by default ~/go/bin). The
// error wraps ErrNotFound and says how to install it.
func FindBinary() (string, error) {
	if p, err := exec.LookPath("versitygw"); err == nil {
		return p, nil
	}
	var dirs []string
	if d := goEnv("GOBIN"); d != "" {
		dirs = append(dirs, d)
	}
	for _, p := range filepath.SplitList(goEnv("GOPATH")) {
		dirs = append(dirs, filepath.Join(p, "bin"))
	}
	for _, d := range dirs {
		p := filepath.Join(d, "versitygw")
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%w (looked on $PATH and in %s; install it with: %s)", ErrNotFound, strings.Join(dirs, ", "), Install)
}

// goEnv is a variable of the go command's environment: the process's own,
// else what `go env` reports (which knows the defaults), else "".
func goEnv(name string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	out, err := exec.Command("go", "env", name).Output()
	if err == nil {
		return strings.TrimSpace(string(out))
	}
	if name == "GOPATH" {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, "go")
		}
	}
	return ""
}
