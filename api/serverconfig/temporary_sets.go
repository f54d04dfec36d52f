package serverconfig

import (
	"time"

	"github.com/ontoindex/ontoindex/objects"
)

// TemporaryObjectSets configures the object sets that
// objectSets/createTemporary stores (server.temporaryObjectSets): their
// definitions, which a reference object set names until they expire or are
// evicted. Zero values take the defaults below.
type TemporaryObjectSets struct {
	// Expiry is how long a set stays usable after it is created.
	Expiry time.Duration `yaml:"expiry" json:"expiry"`
	// MaxSets bounds the sets kept; creating one more evicts the oldest.
	MaxSets int `yaml:"maxSets" json:"maxSets"`
	// MaxBytes bounds the bytes of the definitions kept, each at most
	// maxBodyBytes; beyond it the oldest are evicted.
	MaxBytes int64 `yaml:"maxBytes" json:"maxBytes"`
}

// Temporary object set defaults.
const (
	DefaultTemporaryObjectSetExpiry   = time.Hour
	DefaultMaxTemporaryObjectSets     = 10_000
	DefaultMaxTemporaryObjectSetBytes = 64 << 20
)

// validate checks the section and fills in its defaults.
func (c *TemporaryObjectSets) validate() []error {
	var errs []error
	bad := func(field string) {
		errs = append(errs, &objects.FieldError{Field: field, Msg: "must not be negative"})
	}
	switch {
	case c.Expiry < 0:
		bad("server.temporaryObjectSets.expiry")
	case c.Expiry == 0:
		c.Expiry = DefaultTemporaryObjectSetExpiry
	}
	switch {
	case c.MaxSets < 0:
		bad("server.temporaryObjectSets.maxSets")
	case c.MaxSets == 0:
		c.MaxSets = DefaultMaxTemporaryObjectSets
	}
	switch {
	case c.MaxBytes < 0:
		bad("server.temporaryObjectSets.maxBytes")
	case c.MaxBytes == 0:
		c.MaxBytes = DefaultMaxTemporaryObjectSetBytes
	}
	return errs
}
