package subprocess

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"
)

// WaitHTTP polls url with GET until it answers 200 OK: a server child's
// readiness (`indexer serve`'s /readyz). It fails when the child exits
// first (with the last lines it printed) or when ctx is done.
func (p *Process) WaitHTTP(ctx context.Context, client *http.Client, url string) error {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		if resp, err := client.Do(req); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-p.exited:
			return fmt.Errorf("%s exited (%v) before %s answered 200:\n%s", p.name(), p.waitErr, url, p.Tail())
		case <-ctx.Done():
			return fmt.Errorf("%s: %s did not answer 200: %w; its last lines:\n%s", p.name(), url, ctx.Err(), p.Tail())
		case <-tick.C:
		}
	}
}
