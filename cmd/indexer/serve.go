package main

import (
	"context"
	"fmt"
	"net"

	"github.com/ontoindex/ontoindex/api"
	"github.com/ontoindex/ontoindex/indexer"
)

func init() {
	register(Command{Name: "serve", Summary: "serve the Ontology API over the index until interrupted", Run: runServe})
}

func runServe(ctx context.Context, env *Env, args []string) int {
	fs := newFlags(env, "serve", "--config F [--listen ADDR] [--build]")
	cfgPath := fs.String("config", "", "config file")
	listen := fs.String("listen", "", "address to listen on (host:port; overrides server.listen)")
	build := fs.Bool("build", false, "build every object type once before serving")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	cfg, code, ok := loadConfig(env, "serve", *cfgPath)
	if !ok {
		return code
	}
	addr := cfg.Server.Listen
	if *listen != "" {
		addr = *listen
	}
	if len(cfg.Auth.Tokens) == 0 && !indexer.LoopbackAddr(addr) {
		fmt.Fprintf(env.Stderr, "indexer serve: refusing to listen on %s: no auth.tokens are configured, and anonymous access is only allowed on a loopback address (127.0.0.1, ::1, localhost); configure auth.tokens to serve on other addresses\n", addr)
		return exitUsage
	}
	log := logger(env)
	ix, err := indexer.Open(ctx, cfg, indexer.Options{Logger: log})
	if err != nil {
		fmt.Fprintf(env.Stderr, "indexer serve: %v\n", err)
		return exitFailed
	}
	defer ix.Close()
	if *build {
		for _, r := range ix.BuildAll(ctx, indexer.BuildOptions{}) {
			if r.Error != nil {
				fmt.Fprintf(env.Stderr, "indexer serve: build %s: %s\n", r.ObjectType, r.Error.Message)
				if r.Error.Code == indexer.CodeCanceled {
					return exitAborted
				}
			}
		}
	}
	srv, err := api.New(ix, api.Options{Logger: log})
	if err != nil {
		fmt.Fprintf(env.Stderr, "indexer serve: %v\n", err)
		return exitUsage
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		fmt.Fprintf(env.Stderr, "indexer serve: %v\n", err)
		return exitFailed
	}
	fmt.Fprintf(env.Stderr, "indexer serve: listening on http://%s\n", ln.Addr())
	if err := srv.Serve(ctx, ln); err != nil {
		fmt.Fprintf(env.Stderr, "indexer serve: %v\n", err)
		return exitFailed
	}
	fmt.Fprintln(env.Stderr, "indexer serve: stopped")
	return exitOK
}
