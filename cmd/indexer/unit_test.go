package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ontoindex/ontoindex/api/serverconfig"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/internal/testkit/commandtest"
)

// unitFile is the systemd unit the repository ships.
const unitFile = "../../etc/systemd/indexer.service"

// TestSystemdUnit checks etc/systemd/indexer.service against the code: it
// runs `indexer serve --config` with an absolute path to the sample config
// the repository ships (which loads), with flags serve has; its stop
// signal is one serve stops on gracefully, and its stop timeout leaves
// serve its whole shutdown budget; the config's data dir is writable under
// ProtectSystem=strict; reload sends SIGHUP. Where systemd-analyze exists,
// `systemd-analyze verify` must accept the unit without a word.
func TestSystemdUnit(t *testing.T) {
	u := mustUnit(t, unitFile)
	svc := func(key string) string { return u.last("Service", key) }

	// ExecStart: indexer serve --config /abs/path, flags of serve only.
	starts := u.all("Service", "ExecStart")
	if len(starts) != 1 {
		t.Fatalf("want one ExecStart, got %q", starts)
	}
	argv := strings.Fields(strings.TrimLeft(starts[0], "@-:+!"))
	if len(argv) < 2 || !filepath.IsAbs(argv[0]) || filepath.Base(argv[0]) != "indexer" || argv[1] != "serve" {
		t.Fatalf("ExecStart=%s: want /path/to/indexer serve --config FILE", starts[0])
	}
	_, _, help := run("serve", "-h")
	serveFlags := commandtest.HelpFlags(help)
	flags := map[string]string{}
	for i := 2; i < len(argv); i++ {
		name, value, hasValue := strings.Cut(strings.TrimLeft(argv[i], "-"), "=")
		if !strings.HasPrefix(argv[i], "-") || !slices.Contains(serveFlags, name) {
			t.Fatalf("ExecStart=%s: %q is no flag of indexer serve (flags: %s)", starts[0], argv[i], strings.Join(serveFlags, ", "))
		}
		if !hasValue && name != "build" && name != "daemon" && i+1 < len(argv) { // the others take a value
			i++
			value = argv[i]
		}
		flags[name] = value
	}
	cfgPath := flags["config"]
	if !filepath.IsAbs(cfgPath) {
		t.Fatalf("ExecStart=%s: want --config with an absolute path", starts[0])
	}
	stopGrace := defaultStopGrace
	if v, ok := flags["stop-grace"]; ok {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("ExecStart: --stop-grace %q: %v", v, err)
		}
		stopGrace = d
	}

	// The sample config, installed at the path of --config, loads; its
	// data dir is writable.
	sample := filepath.Join("../..", cfgPath)
	cfg, err := config.Load(sample)
	if err != nil {
		t.Fatalf("the sample config for --config %s: %v", cfgPath, err)
	}
	dataDir := cfg.Path(cfg.DataDir)
	writable := false
	for _, p := range strings.Fields(strings.Join(u.all("Service", "ReadWritePaths"), " ")) {
		p = strings.TrimLeft(p, "-+")
		if rel, err := filepath.Rel(p, dataDir); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			writable = true
		}
	}
	if !writable {
		t.Errorf("the data dir %s of %s is not under ReadWritePaths=%q", dataDir, sample, u.all("Service", "ReadWritePaths"))
	}
	if sd := svc("StateDirectory"); sd != "" && filepath.Join("/var/lib", sd) != dataDir {
		t.Errorf("StateDirectory=%s is not the data dir %s of %s", sd, dataDir, sample)
	}

	// Stop: a signal that starts the graceful shutdown, and the time to
	// finish it before SIGKILL.
	if s := svc("KillSignal"); s != "SIGTERM" && s != "TERM" && s != "15" {
		t.Errorf("KillSignal=%s: want SIGTERM, which starts serve's graceful shutdown (main.go)", s)
	}
	if m := svc("KillMode"); m == "none" {
		t.Errorf("KillMode=%s", m)
	}
	if v := svc("SendSIGKILL"); isFalse(v) {
		t.Errorf("SendSIGKILL=%s: a serve that hangs on close would never be killed", v)
	}
	for what, d := range map[string]time.Duration{
		"--stop-grace":                           stopGrace,
		"server.shutdownTimeout of the sample":   cfg.Server.ShutdownTimeout,
		"server.shutdownTimeout's default (10s)": serverconfig.DefaultShutdownTimeout,
	} {
		if d > shutdownBudget {
			t.Errorf("%s is %s, more than serve's shutdown budget of %s: serve gives up before it ends", what, d, shutdownBudget)
		}
	}
	stop, err := systemdTimespan(svc("TimeoutStopSec"))
	if err != nil {
		t.Fatalf("TimeoutStopSec: %v", err)
	}
	// After the budget serve still closes the stores, which saves the index.
	const closeMargin = 10 * time.Second
	if stop < shutdownBudget+closeMargin {
		t.Errorf("TimeoutStopSec=%s: systemd would SIGKILL serve before its shutdown budget of %s and %s to close the stores are over", svc("TimeoutStopSec"), shutdownBudget, closeMargin)
	}

	// Reload, restarts, user and hardening.
	if r := svc("ExecReload"); !regexp.MustCompile(`kill (-s )?-?(SIG)?HUP \$MAINPID$`).MatchString(r) {
		t.Errorf("ExecReload=%s: want it to send SIGHUP to $MAINPID, which reloads the config", r)
	}
	if r := svc("Restart"); r != "on-failure" {
		t.Errorf("Restart=%s, want on-failure", r)
	}
	if !slices.Contains(strings.Fields(svc("RestartPreventExitStatus")), strconv.Itoa(exitUsage)) {
		t.Errorf("RestartPreventExitStatus=%s: want %d (a config error), which a restart does not fix", svc("RestartPreventExitStatus"), exitUsage)
	}
	if user := svc("User"); user == "" || user == "root" || user == "0" {
		t.Errorf("User=%s: want a dedicated user", user)
	}
	for key, want := range map[string]string{"NoNewPrivileges": "yes", "ProtectSystem": "strict", "PrivateTmp": "yes"} {
		if got := svc(key); got != want {
			t.Errorf("%s=%s, want %s", key, got, want)
		}
	}

	t.Run("systemd-analyze", func(t *testing.T) {
		if _, err := exec.LookPath("systemd-analyze"); err != nil {
			t.Skip("systemd-analyze is not installed (Debian's systemd package): the unit is not verified by systemd")
		}
		// verify wants ExecStart's program to exist: the unit runs this
		// test binary instead of /usr/local/bin/indexer.
		self, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		if out := systemdVerify(t, strings.Replace(u.text, argv[0], self, 1)); out != "" {
			t.Errorf("systemd-analyze verify %s:\n%s", unitFile, out)
		}
		// The check itself: a unit systemd ignores a line of is reported.
		bad := strings.Replace(u.text, "[Service]\n", "[Service]\nNoSuchKey=1\n", 1)
		if out := systemdVerify(t, strings.Replace(bad, argv[0], self, 1)); !strings.Contains(out, "NoSuchKey") {
			t.Errorf("systemd-analyze verify of a unit with an unknown key reported nothing: %q", out)
		}
	})
}

// systemdVerify runs `systemd-analyze verify` on text as indexer.service
// and returns what it says of the unit (its lines that name the unit, or
// everything when it fails), "" when nothing.
func systemdVerify(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "indexer.service")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("systemd-analyze", "verify", path).CombinedOutput()
	if err != nil {
		return fmt.Sprintf("%v\n%s", err, out)
	}
	var lines []string
	for line := range strings.SplitSeq(string(out), "\n") {
		if strings.Contains(line, "indexer.service") {
			lines = append(lines, line)
		}
	}
	return strings.Join(lines, "\n")
}

// TestSystemdTimespan checks the parser of TimeoutStopSec values.
func TestSystemdTimespan(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"45": 45 * time.Second, "45s": 45 * time.Second, "1min 30s": 90 * time.Second, "2m": 2 * time.Minute,
		"1h": time.Hour, "500ms": 500 * time.Millisecond, "1min30sec": 90 * time.Second,
	} {
		if got, err := systemdTimespan(in); err != nil || got != want {
			t.Errorf("systemdTimespan(%q) = %s, %v; want %s", in, got, err, want)
		}
	}
	for _, in := range []string{"", "infinity", "10 parsecs", "s"} {
		if got, err := systemdTimespan(in); err == nil {
			t.Errorf("systemdTimespan(%q) = %s, want an error", in, got)
		}
	}
}

// unit is a parsed systemd unit file: the values of each section's keys,
// in order.
type unit struct {
	text   string
	values map[string][]string // "Section.Key"
}

func (u *unit) all(section, key string) []string { return u.values[section+"."+key] }

func (u *unit) last(section, key string) string {
	v := u.all(section, key)
	if len(v) == 0 {
		return ""
	}
	return v[len(v)-1]
}

// mustUnit parses a unit file: [Section] lines, Key=Value lines, comments
// (# and ;), and lines continued by a trailing backslash.
func mustUnit(t *testing.T, path string) *unit {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	u := &unit{text: string(b), values: map[string][]string{}}
	section := ""
	sc := bufio.NewScanner(strings.NewReader(u.text))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		for strings.HasSuffix(line, `\`) && sc.Scan() {
			n++
			line = strings.TrimSuffix(line, `\`) + " " + strings.TrimSpace(sc.Text())
		}
		switch {
		case line == "" || line[0] == '#' || line[0] == ';':
		case line[0] == '[' && line[len(line)-1] == ']':
			section = line[1 : len(line)-1]
		default:
			key, value, ok := strings.Cut(line, "=")
			if !ok || section == "" {
				t.Fatalf("%s:%d: not a Key=Value line in a section: %q", path, n, line)
			}
			k := section + "." + strings.TrimSpace(key)
			u.values[k] = append(u.values[k], strings.TrimSpace(value))
		}
	}
	return u
}

var timespanPart = regexp.MustCompile(`^(\d+)\s*([a-z]*)\s*`)

// systemdTimespan parses a systemd time span ("45s", "1min 30s", a bare
// number of seconds).
func systemdTimespan(s string) (time.Duration, error) {
	units := map[string]time.Duration{
		"": time.Second, "s": time.Second, "sec": time.Second, "second": time.Second, "seconds": time.Second,
		"ms": time.Millisecond, "msec": time.Millisecond, "us": time.Microsecond, "usec": time.Microsecond,
		"m": time.Minute, "min": time.Minute, "minute": time.Minute, "minutes": time.Minute,
		"h": time.Hour, "hr": time.Hour, "hour": time.Hour, "hours": time.Hour,
	}
	rest := strings.TrimSpace(s)
	if rest == "" {
		return 0, fmt.Errorf("empty time span")
	}
	var d time.Duration
	for rest != "" {
		m := timespanPart.FindStringSubmatch(rest)
		if m == nil {
			return 0, fmt.Errorf("time span %q: not a number and a unit at %q", s, rest)
		}
		n, _ := strconv.Atoi(m[1])
		u, ok := units[m[2]]
		if !ok {
			return 0, fmt.Errorf("time span %q: unknown unit %q", s, m[2])
		}
		d += time.Duration(n) * u
		rest = rest[len(m[0]):]
	}
	return d, nil
}

func isFalse(v string) bool {
	return slices.Contains([]string{"no", "false", "off", "0"}, strings.ToLower(v))
}
