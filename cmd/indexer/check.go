package main

import (
	"context"
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/ontoindex/ontoindex/cowguard"
	"github.com/ontoindex/ontoindex/indexer"
)

// checkResult is one line of the report; Error is set when the table could
// not be checked.
type checkResult struct {
	cowguard.Report
	Error *indexer.ErrorInfo `json:"error,omitempty"`
}

func runCheck(ctx context.Context, env *Env, args []string) int {
	fs := newFlags(env, "check", "--config F [--type T] [--json]")
	cfgPath := fs.String("config", "", "config file")
	typ := fs.String("type", "", "check only this object type")
	asJSON := fs.Bool("json", false, "print the report as a JSON array")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	ix, code, ok := openIndex(ctx, env, "check", *cfgPath, *typ, nil, exitUsage)
	if !ok {
		return code
	}
	defer ix.Close()
	names := ix.Types()
	if *typ != "" {
		names = []string{*typ}
	}
	var results []checkResult
	exit := exitOK
	for _, name := range names {
		r, err := ix.Check(ctx, name)
		cr := checkResult{Report: r}
		if err != nil {
			cr.Error = &indexer.ErrorInfo{Code: indexer.ErrorCode(err), Message: err.Error()}
			cr.Verdict = "error"
			exit = exitUsage
		} else if r.Verdict == cowguard.VerdictFail && exit == exitOK {
			exit = exitFailed
		}
		results = append(results, cr)
	}
	if *asJSON {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(results)
		return exit
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "OBJECT TYPE\tTABLE\tFV\tDELETE\tUPDATE\tMERGE\tPOS\tEQ\tDV\tVERDICT")
	for _, r := range results {
		verdict := string(r.Verdict)
		if r.Error != nil {
			verdict = "error"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%d\t%d\t%d\t%s\n", r.ObjectType, r.Table, r.FormatVersion,
			r.WriteModes.Delete, r.WriteModes.Update, r.WriteModes.Merge,
			r.LiveDeleteFiles.Position, r.LiveDeleteFiles.Equality, r.LiveDeleteFiles.DeletionVectors, verdict)
	}
	_ = tw.Flush()
	for _, r := range results {
		switch {
		case r.Error != nil:
			fmt.Fprintf(env.Stdout, "\n%s: could not check: %s\n", r.ObjectType, r.Error.Message)
		case r.Verdict != cowguard.VerdictOK:
			fmt.Fprintf(env.Stdout, "\n%s (%s): %s\n", r.ObjectType, r.Verdict, r.Message)
		}
	}
	return exit
}
