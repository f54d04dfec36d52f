package changelog

import (
	"strconv"

	"github.com/apache/iceberg-go/table"
)

// summaryDisagrees reports whether a planned step adds or removes a
// different number of data files than its snapshot's summary says
// (added-data-files, deleted-data-files; a count the summary omits is not
// checked). iceberg-go's planner attributes manifest entries by their own
// snapshot id, so a DELETED entry that a writer mislabelled with an older
// snapshot's id (PyIceberg 0.9's overwrite) is dropped when that snapshot
// lies before the range; the summary still counts the removal.
func summaryDisagrees(changes []table.Snapshot, steps []step) bool {
	for i, s := range changes {
		if s.Summary == nil || i >= len(steps) {
			continue
		}
		var added, deleted int
		for _, f := range steps[i].files {
			if f.deleted {
				deleted++
			} else {
				added++
			}
		}
		for key, n := range map[string]int{"added-data-files": added, "deleted-data-files": deleted} {
			v, ok := s.Summary.Properties[key]
			if !ok {
				continue
			}
			if want, err := strconv.Atoi(v); err == nil && want != n {
				return true
			}
		}
	}
	return false
}
