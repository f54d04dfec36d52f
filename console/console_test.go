package console_test

import (
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ontoindex/ontoindex/console"
)

func get(t *testing.T, h http.Handler, path string, hdr map[string]string) *http.Response {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Result()
}

func TestHandler(t *testing.T) {
	h := console.Handler()
	tests := []struct {
		path, ctype string
		status      int
		body        string
	}{
		{"/", "text/html; charset=utf-8", 200, `<script type="module" src="/console/js/app.js"></script>`},
		{"/console/js/app.js", "text/javascript; charset=utf-8", 200, "import"},
		{"/console/js/pages/explorer.js", "text/javascript; charset=utf-8", 200, "renderExplorer"},
		{"/console/style.css", "text/css; charset=utf-8", 200, ":root"},
		{"/console/icon.svg", "image/svg+xml", 200, "<svg"},
		{"/console/index.html", "", 404, ""}, // the page is at / only
		{"/console/js/nope.js", "", 404, ""},
		{"/console/../console.go", "", 404, ""},
		{"/console/", "", 404, ""},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			resp := get(t, h, tt.path, nil)
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, tt.status)
			}
			if got := resp.Header.Get("Content-Security-Policy"); got != console.ContentSecurityPolicy {
				t.Errorf("CSP %q", got)
			}
			if resp.Header.Get("X-Content-Type-Options") != "nosniff" || resp.Header.Get("Set-Cookie") != "" {
				t.Errorf("headers %v", resp.Header)
			}
			if tt.status != 200 {
				return
			}
			if got := resp.Header.Get("Content-Type"); got != tt.ctype {
				t.Errorf("content type %q, want %q", got, tt.ctype)
			}
			if !strings.Contains(string(body), tt.body) {
				t.Errorf("body has no %q", tt.body)
			}
			etag := resp.Header.Get("ETag")
			if etag == "" {
				t.Fatal("no ETag")
			}
			if again := get(t, h, tt.path, map[string]string{"If-None-Match": etag}); again.StatusCode != http.StatusNotModified {
				t.Errorf("revalidation: %d", again.StatusCode)
			}
		})
	}
}

// TestContentSecurityPolicy: the policy allows nothing inline and nothing
// from another origin.
func TestContentSecurityPolicy(t *testing.T) {
	p := console.ContentSecurityPolicy
	for _, want := range []string{"default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "frame-ancestors 'none'", "form-action 'none'"} {
		if !strings.Contains(p, want) {
			t.Errorf("policy has no %q: %s", want, p)
		}
	}
	for _, bad := range []string{"unsafe-inline", "unsafe-eval", "*", "http:", "https:"} {
		if strings.Contains(p, bad) {
			t.Errorf("policy allows %q: %s", bad, p)
		}
	}
}

// TestAssets checks the sources of the console for what its safety rests
// on: the page has no inline script, style or event handler, and the
// scripts never parse HTML from values, evaluate strings, or keep the
// token anywhere but sessionStorage.
func TestAssets(t *testing.T) {
	html, err := os.ReadFile(filepath.Join("assets", "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	scripts := regexp.MustCompile(`(?is)<script([^>]*)>(.*?)</script>`).FindAllSubmatch(html, -1)
	if len(scripts) != 1 {
		t.Errorf("index.html has %d scripts, want the one module", len(scripts))
	}
	for _, m := range scripts {
		if !regexp.MustCompile(`\ssrc="/console/[^"]+"`).Match(m[1]) || strings.TrimSpace(string(m[2])) != "" {
			t.Errorf("index.html has an inline script: %q", m[0])
		}
	}
	for _, re := range []string{`\sstyle\s*=`, `\son[a-z]+\s*=`, `<style`, `javascript:`} {
		if m := regexp.MustCompile(`(?i)` + re).Find(html); m != nil {
			t.Errorf("index.html has inline code: %q", m)
		}
	}
	forbidden := []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function", "setTimeout(\"", "localStorage", "document.cookie", "console.log"}
	n := 0
	err = fs.WalkDir(os.DirFS("assets"), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".js" {
			return err
		}
		n++
		src, err := os.ReadFile(filepath.Join("assets", path))
		if err != nil {
			return err
		}
		for _, f := range forbidden {
			if strings.Contains(string(src), f) {
				t.Errorf("%s uses %s", path, f)
			}
		}
		return nil
	})
	if err != nil || n < 10 {
		t.Fatalf("walked %d scripts: %v", n, err)
	}
}
