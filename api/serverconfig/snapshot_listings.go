package serverconfig

import (
	"time"

	"github.com/ontoindex/ontoindex/objects"
)

// SnapshotListings configures the listings that ask for snapshot: true
// (server.snapshotListings): every page of such a listing reads the
// snapshot of its first page, which the server holds between pages.
// Holding a snapshot keeps the memory of what builds have replaced since,
// so both bounds are tight by default. Zero values take the defaults.
type SnapshotListings struct {
	// Retention is how long a listing's snapshot is held after its last
	// page was served; the next page must come within it.
	Retention time.Duration `yaml:"retention" json:"retention"`
	// MaxListings bounds the snapshots held at once; one more releases
	// the one used least recently.
	MaxListings int `yaml:"maxListings" json:"maxListings"`
}

// Snapshot listing defaults.
const (
	DefaultSnapshotRetention   = 5 * time.Minute
	DefaultMaxSnapshotListings = 1000
)

// validate checks the section and fills in its defaults.
func (c *SnapshotListings) validate() []error {
	var errs []error
	bad := func(field string) {
		errs = append(errs, &objects.FieldError{Field: field, Msg: "must not be negative"})
	}
	switch {
	case c.Retention < 0:
		bad("server.snapshotListings.retention")
	case c.Retention == 0:
		c.Retention = DefaultSnapshotRetention
	}
	switch {
	case c.MaxListings < 0:
		bad("server.snapshotListings.maxListings")
	case c.MaxListings == 0:
		c.MaxListings = DefaultMaxSnapshotListings
	}
	return errs
}
