package main

import (
	"context"
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/ontoindex/ontoindex/cowguard"
	"github.com/ontoindex/ontoindex/indexer"
)

func runCheck(ctx context.Context, env *Env, args []string) int {
	fs := newFlags(env, "check", "--config F [--type T] [--json]")
	cfgPath := fs.String("config", "", "config file")
	typ := fs.String("type", "", "check only this object type")
	asJSON := fs.Bool("json", false, "print the report as JSON, as GET /api/indexer/v1/checks/write-modes answers it: {verdict, objectTypes: [...]}")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	ix, code, ok := openIndex(ctx, env, openRequest{command: "check", configPath: *cfgPath, objectType: *typ, openFailed: exitUsage})
	if !ok {
		return code
	}
	defer ix.Close()
	names := ix.Types()
	if *typ != "" {
		names = []string{*typ}
	}
	rep, err := indexer.CheckWriteModes(ctx, ix, names)
	if err != nil {
		fmt.Fprintf(env.Stderr, "indexer check: %v\n", err)
		return exitAborted
	}
	// The worst verdict decides: a table that could not be checked is a
	// usage or config error (2), a failing one, or a mapping that does not
	// fit its table (as a build would fail), a failure (1).
	exit := exitOK
	switch rep.Verdict {
	case indexer.VerdictError:
		exit = exitUsage
	case cowguard.VerdictFail:
		exit = exitFailed
	}
	// The report goes to stdout, the tables that could not be checked
	// once to stderr.
	defer func() {
		for _, r := range rep.ObjectTypes {
			if r.Error != nil {
				fmt.Fprintf(env.Stderr, "indexer check: could not check %s\n", typeMessage(r.ObjectType, r.Error.Message))
			}
		}
	}()
	if *asJSON {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(rep)
		return exit
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "OBJECT TYPE\tTABLE\tFV\tDELETE\tUPDATE\tMERGE\tPOS\tEQ\tDV\tVERDICT\tMAPPING")
	for _, r := range rep.ObjectTypes {
		mapping := cowguard.Verdict("-") // the table could not be checked
		if r.Mapping != nil {
			mapping = r.Mapping.Verdict
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%d\t%d\t%d\t%s\t%s\n", r.ObjectType, r.Table, r.FormatVersion,
			r.WriteModes.Delete, r.WriteModes.Update, r.WriteModes.Merge,
			r.LiveDeleteFiles.Position, r.LiveDeleteFiles.Equality, r.LiveDeleteFiles.DeletionVectors, r.Verdict, mapping)
	}
	_ = tw.Flush()
	for _, r := range rep.ObjectTypes {
		if r.Error == nil && r.Verdict != cowguard.VerdictOK {
			fmt.Fprintf(env.Stdout, "\n%s (%s): %s\n", r.ObjectType, r.Verdict, r.Message)
		}
		if r.Mapping != nil && r.Mapping.Error != nil {
			fmt.Fprintf(env.Stdout, "\n%s (mapping %s): %s\n", r.ObjectType, r.Mapping.Verdict, r.Mapping.Error.Message)
		}
	}
	return exit
}
