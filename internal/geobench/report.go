package geobench

import (
	"fmt"
	"io"
	"time"
)

// WriteText writes the report as the Markdown table docs/benchmarks.md
// holds.
func (r *Report) WriteText(w io.Writer) error {
	_, err := fmt.Fprintf(w, "%d points and %d polygons; engine index built in %s, PostGIS %s (PostgreSQL %s) loaded and indexed in %s\n\n",
		r.Rows, r.Rows, r.EngineBuild.Round(time.Millisecond), r.PostGIS, r.PGVersion, r.PGLoad.Round(time.Millisecond))
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "| filter | as | matches | ontoindex q/s | PostGIS q/s | ratio |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|")
	for _, x := range r.Results {
		as := "page of 100"
		if x.Count {
			as = "count"
		}
		if _, err := fmt.Fprintf(w, "| %s | %s | %d | %.1f | %.1f | %.2fx |\n", x.Query, as, x.Matches, x.EngineQPS, x.PGQPS, x.EngineQPS/x.PGQPS); err != nil {
			return err
		}
	}
	return nil
}
