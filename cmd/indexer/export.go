package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"

	"github.com/ontoindex/ontoindex/objects"
)

func runExport(ctx context.Context, env *Env, args []string) int {
	fs := newFlags(env, "export", "--config F --type T")
	cfgPath := fs.String("config", "", "config file")
	typ := fs.String("type", "", "object type to export (required)")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if *typ == "" {
		fmt.Fprintln(env.Stderr, "indexer export: --type is required")
		return exitUsage
	}
	ix, code, ok := openIndex(ctx, env, openRequest{command: "export", configPath: *cfgPath, objectType: *typ, openFailed: exitFailed})
	if !ok {
		return code
	}
	defer ix.Close()
	v, err := ix.View(*typ)
	if err != nil {
		fmt.Fprintf(env.Stderr, "indexer export: %v\n", err)
		return exitFailed
	}
	defer v.Release()
	t := v.Type()
	out := bufio.NewWriter(env.Stdout)
	enc := json.NewEncoder(out)
	var encErr error
	err = v.Scan(nil, func(_ []byte, o *objects.Object) bool {
		if encErr = enc.Encode(t.JSON(o)); encErr != nil {
			return false
		}
		return ctx.Err() == nil
	})
	if err == nil {
		err = encErr
	}
	if err == nil {
		err = ctx.Err()
	}
	if ferr := out.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "indexer export: %v\n", err)
		return exitFailed
	}
	return exitOK
}
