package geobench

import (
	"fmt"
	"io"
	"time"
)

// WriteText writes the report as the Markdown table docs/benchmarks.md
// holds: a page's ratio against PostGIS's page, and against PostGIS's
// page with its count, which is what the engine's page answers.
func (r *Report) WriteText(w io.Writer) error {
	_, err := fmt.Fprintf(w, "%d points and %d polygons; engine index built in %s, PostGIS %s (PostgreSQL %s) loaded and indexed in %s\n\n",
		r.Rows, r.Rows, r.EngineBuild.Round(time.Millisecond), r.PostGIS, r.PGVersion, r.PGLoad.Round(time.Millisecond))
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "| filter | as | matches | ontoindex q/s | PostGIS q/s | ratio | PostGIS page+count q/s (form) | ratio |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---:|")
	for _, x := range r.Results {
		as, pageCount := "page of 100", fmt.Sprintf(" %.1f (%s) | %.2fx |", x.PGPageCountQPS, x.PGPageCountForm, x.EngineQPS/x.PGPageCountQPS)
		if x.Count {
			as, pageCount = "count", " | |"
		}
		if _, err := fmt.Fprintf(w, "| %s | %s | %d | %.1f | %.1f | %.2fx |%s\n", x.Query, as, x.Matches, x.EngineQPS, x.PGQPS, x.EngineQPS/x.PGQPS, pageCount); err != nil {
			return err
		}
	}
	return nil
}
