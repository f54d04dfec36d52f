package console

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/http"
	"path"
	"strings"
)

//go:embed assets
var assets embed.FS

// ContentSecurityPolicy is the policy of every console response: scripts,
// styles, images and requests from the server's own origin only; no inline
// script or style, no plugin, no frame, no form submission, no <base>.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'"

// Prefix is the path the assets are served under; / is the page.
const Prefix = "/console/"

// contentTypes are the types of the asset extensions, fixed here rather
// than read from the system's MIME tables, which differ between machines.
var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".svg":  "image/svg+xml",
	".txt":  "text/plain; charset=utf-8",
}

// asset is one embedded file, ready to serve.
type asset struct {
	body  []byte
	ctype string
	etag  string
}

// Handler serves the console: GET / is the page (index.html), GET
// /console/<file> its assets. Anything else under the prefix is 404.
// Responses are revalidated by ETag (the SHA-256 of the file), so a new
// binary's assets are picked up at once.
func Handler() http.Handler {
	files, err := load(assets)
	if err != nil {
		panic(err) // the embedded tree is fixed at build time: a test covers it
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := "index.html"
		if r.URL.Path != "/" {
			name = strings.TrimPrefix(r.URL.Path, Prefix)
		}
		a, ok := files[name]
		h := w.Header()
		h.Set("Content-Security-Policy", ContentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Cache-Control", "no-cache")
		if !ok || name == "index.html" && r.URL.Path != "/" {
			http.Error(w, "404 page not found", http.StatusNotFound)
			return
		}
		h.Set("Content-Type", a.ctype)
		h.Set("ETag", a.etag)
		if match := r.Header.Get("If-None-Match"); match == a.etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		_, _ = w.Write(a.body)
	})
}

// load reads the files under assets/, by their path below it.
func load(fsys fs.FS) (map[string]asset, error) {
	files := map[string]asset{}
	err := fs.WalkDir(fsys, "assets", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		ctype, ok := contentTypes[path.Ext(p)]
		if !ok {
			return fmt.Errorf("console asset %s: no content type for %q", p, path.Ext(p))
		}
		body, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(body)
		files[strings.TrimPrefix(p, "assets/")] = asset{body: body, ctype: ctype, etag: `"` + hex.EncodeToString(sum[:16]) + `"`}
		return nil
	})
	return files, err
}
