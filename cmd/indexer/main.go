// Command indexer keeps search indexes of objects in step with the Iceberg
// tables behind them. See README.md.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := notifyContext(context.Background(), os.Stderr)
	code := Main(ctx, os.Args[1:], &Env{Stdout: os.Stdout, Stderr: os.Stderr})
	stop()
	os.Exit(code)
}

// notifyContext returns a context that the first SIGINT or SIGTERM
// cancels, so that commands stop gracefully; a second signal exits at once
// with status 130. stop ends the watch.
func notifyContext(parent context.Context, stderr io.Writer) (ctx context.Context, stop func()) {
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
			fmt.Fprintf(stderr, "indexer: second signal (%s): exiting at once\n", s)
			os.Exit(exitAborted)
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
