package searchbench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/ontoindex/ontoindex/api/serverconfig"
)

// The floor: the standard library's own cost of a get by key. A bare
// net/http server, in a process of its own (`ontolab bench floor`) so that
// its CPU is measured apart from the clients', answers every request with
// the bytes ontoindex answered one get with: the same status line,
// Content-Type, Content-Length and body, and the same server timeouts as
// `indexer serve`'s defaults (each adds deadline calls per request). The
// get by key is measured on it in the same rounds as on ontoindex and
// PostgreSQL, with the same clients, so that ontoindex's server CPU per
// get can be read against it: what routing, authentication, metrics, the
// request log, the engine's lookup and rendering add to net/http.

// ServeFloor serves body on ln until ctx is done.
func ServeFloor(ctx context.Context, ln net.Listener, body []byte) error {
	contentType := []string{"application/json"}
	contentLength := []string{strconv.Itoa(len(body))}
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			h := w.Header()
			h["Content-Type"] = contentType
			h["Content-Length"] = contentLength
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write(body)
		}),
		ReadHeaderTimeout: serverconfig.DefaultReadHeaderTimeout,
		ReadTimeout:       serverconfig.DefaultReadTimeout,
		WriteTimeout:      serverconfig.DefaultReadTimeout + serverconfig.DefaultRequestTimeout + serverconfig.DefaultWriteMargin,
		IdleTimeout:       serverconfig.DefaultIdleTimeout,
		MaxHeaderBytes:    serverconfig.DefaultMaxHeaderBytes,
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := srv.Shutdown(sctx)
	if serr := <-errc; err == nil && !errors.Is(serr, http.ErrServerClosed) {
		err = serr
	}
	return err
}

// startFloor fetches the answer of one get by key from onto, writes it
// into dir and starts `bin bench floor` serving it (bin: ontolab).
func startFloor(ctx context.Context, bin string, onto *ontoClient, id int64, dir string, progress io.Writer) (*ontoServer, error) {
	var body []byte
	err := onto.http.do(ctx, http.MethodGet, onto.base+"/objects/"+objectType+"/"+strconv.FormatInt(id, 10), nil, func(status int, raw []byte) {
		if status == http.StatusOK {
			body = bytes.Clone(raw)
		}
	})
	if err != nil || body == nil {
		return nil, fmt.Errorf("floor: the get of %d: %v", id, err)
	}
	path := filepath.Join(dir, "floor-get.json")
	if err := os.WriteFile(path, body, 0o644); err != nil {
		return nil, fmt.Errorf("floor: %w", err)
	}
	cmd := exec.Command(bin, "bench", "floor", "--body", path, "--listen", "127.0.0.1:0")
	return startChild(ctx, cmd, "floor", progress)
}
