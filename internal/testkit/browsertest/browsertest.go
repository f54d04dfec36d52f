package browsertest

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Timeout bounds every browser action of a tab: generous, since tests run
// on a loaded machine, and only reached when something is wrong.
const Timeout = 90 * time.Second

// candidates are the browser binaries looked for on PATH.
var candidates = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

// ExecPath returns the browser to run: $CHROMIUM, else the first of
// candidates on PATH.
func ExecPath() (string, error) {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return exec.LookPath(p)
	}
	for _, c := range candidates {
		if p, err := exec.LookPath(c); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no browser found (looked for $CHROMIUM and %v on PATH)", candidates)
}

// Browser is a headless Chromium that a test owns.
type Browser struct {
	ctx context.Context // the browser's first tab; new tabs derive from it
}

// New starts a headless browser with a window of width x height pixels,
// stopped when tb ends. Without a browser it skips tb, or fails it on CI.
func New(tb testing.TB, width, height int) *Browser {
	tb.Helper()
	path, err := ExecPath()
	if err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("%v: .ci/run installs the Debian package chromium", err)
		}
		tb.Skipf("%v: install one (apt-get install chromium) to run the browser tests", err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.WindowSize(width, height),
		chromedp.UserDataDir(tb.TempDir()),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("mute-audio", true),
	)
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox) // Chromium refuses to run as root with its sandbox
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	if err := chromedp.Do(bctx); err != nil { // starts the browser
		cancelBrowser()
		cancelAlloc()
		tb.Fatalf("start %s: %v", path, err)
	}
	tb.Cleanup(func() {
		cancelBrowser()
		cancelAlloc()
	})
	return &Browser{ctx: bctx}
}

// Tab is one browser tab, and what went wrong in it: uncaught exceptions
// and security messages (Content-Security-Policy violations) that the
// page wrote to the console.
type Tab struct {
	Ctx context.Context

	mu       sync.Mutex
	problems []string
}

// Tab opens a new tab, closed when tb ends.
func (b *Browser) Tab(tb testing.TB) *Tab {
	tb.Helper()
	ctx, cancel := chromedp.NewContext(b.ctx)
	t := &Tab{Ctx: ctx}
	messages := chromedp.Console(ctx) // subscribes now: nothing of the first page is lost
	var wg sync.WaitGroup
	wg.Go(func() {
		for m, err := range messages {
			if err != nil {
				return // the tab is closed
			}
			if m.IsException() || m.Source == "security" {
				t.mu.Lock()
				t.problems = append(t.problems, fmt.Sprintf("%s %s (%s:%d)", m.Type, m.Text, m.URL, m.Line+1))
				t.mu.Unlock()
			}
		}
	})
	tb.Cleanup(func() {
		cancel()
		wg.Wait()
	})
	return t
}

// Do runs actions in the tab within Timeout and fails tb on an error.
func (t *Tab) Do(tb testing.TB, actions ...chromedp.Action[chromedp.Void]) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(t.Ctx, Timeout)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		tb.Fatalf("browser: %v", err)
	}
}

// Get runs one action in the tab within Timeout and returns its value; it
// fails tb on an error.
func Get[T any](tb testing.TB, t *Tab, a chromedp.Action[T]) T {
	tb.Helper()
	ctx, cancel := context.WithTimeout(t.Ctx, Timeout)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		tb.Fatalf("browser: %v", err)
	}
	return v
}

// Problems returns the uncaught exceptions and the security messages
// (Content-Security-Policy violations) of the tab so far.
func (t *Tab) Problems() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string{}, t.problems...)
}

// Screenshot saves a screenshot of the tab's viewport to path and checks
// that it is a PNG with something drawn on it (CheckPNG).
func (t *Tab) Screenshot(tb testing.TB, path string) {
	tb.Helper()
	buf := Get(tb, t, chromedp.CaptureScreenshot())
	if err := CheckPNG(buf); err != nil {
		tb.Fatalf("screenshot %s: %v", filepath.Base(path), err)
	}
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		tb.Fatal(err)
	}
	tb.Logf("screenshot %s (%d bytes)", path, len(buf))
}

// MinStdDev is the least standard deviation of luminance (0..255) that
// CheckPNG takes for a page with something on it; a blank page is 0, a
// page of text and tables tens.
const MinStdDev = 8

// CheckPNG decodes a PNG and checks that it is not blank: at least 100
// pixels wide and high, and a standard deviation of luminance over its
// pixels of MinStdDev or more.
func CheckPNG(b []byte) error {
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("decode png: %w", err)
	}
	r := img.Bounds()
	if r.Dx() < 100 || r.Dy() < 100 {
		return fmt.Errorf("png is %dx%d pixels", r.Dx(), r.Dy())
	}
	if sd := lumaStdDev(img); sd < MinStdDev {
		return fmt.Errorf("png looks blank: luminance standard deviation %.2f < %d", sd, MinStdDev)
	}
	return nil
}

func lumaStdDev(img image.Image) float64 {
	r := img.Bounds()
	var sum, sq, n float64
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			l := (0.299*float64(cr) + 0.587*float64(cg) + 0.114*float64(cb)) / 257
			sum += l
			sq += l * l
			n++
		}
	}
	mean := sum / n
	v := sq/n - mean*mean
	if v < 0 {
		v = 0
	}
	return math.Sqrt(v)
}
