package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// NotifyContext returns a context that the first SIGINT or SIGTERM
// cancels, so that commands stop gracefully; a second signal exits at once
// with ExitAborted. stop ends the watch.
func NotifyContext(parent context.Context, program string, stderr io.Writer) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancel(parent)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	quit, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		select {
		case <-sigs:
			cancel()
		case <-quit:
			return
		}
		select {
		case s := <-sigs:
			fmt.Fprintf(stderr, "%s: second signal (%s): exiting at once\n", program, s)
			os.Exit(ExitAborted)
		case <-quit:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(quit)
		<-exited
		cancel()
	}
}
