package config

import (
	"fmt"
	"time"

	"github.com/ontoindex/ontoindex/objects"
)

// Daemon configures the build scheduling of `indexer serve` (YAML
// section `daemon`). Zero values mean the defaults below.
//
//	daemon:
//	  pollInterval: 10s          # default for object types without their own pollInterval
//	  jitter: 0.1                # each wait is spread by up to ±10%
//	  maxConcurrentBuilds: 2     # builds that run at the same time, over all object types
//	  retryBackoff: 1s           # wait after the first failed build; doubles per failure
//	  maxRetryBackoff: 5m        # cap of the wait between retries
type Daemon struct {
	PollInterval        time.Duration `yaml:"pollInterval" json:"pollInterval,omitempty"`
	Jitter              float64       `yaml:"jitter" json:"jitter,omitempty"`
	MaxConcurrentBuilds int           `yaml:"maxConcurrentBuilds" json:"maxConcurrentBuilds,omitempty"`
	RetryBackoff        time.Duration `yaml:"retryBackoff" json:"retryBackoff,omitempty"`
	MaxRetryBackoff     time.Duration `yaml:"maxRetryBackoff" json:"maxRetryBackoff,omitempty"`
}

// Daemon defaults.
const (
	DefaultPollInterval        = 10 * time.Second
	DefaultJitter              = 0.1
	DefaultMaxConcurrentBuilds = 2
	DefaultRetryBackoff        = time.Second
	DefaultMaxRetryBackoff     = 5 * time.Minute
)

// WithDefaults returns the config with every zero value replaced by its
// default.
func (c Daemon) WithDefaults() Daemon {
	if c.PollInterval == 0 {
		c.PollInterval = DefaultPollInterval
	}
	if c.Jitter == 0 {
		c.Jitter = DefaultJitter
	}
	if c.MaxConcurrentBuilds == 0 {
		c.MaxConcurrentBuilds = DefaultMaxConcurrentBuilds
	}
	if c.RetryBackoff == 0 {
		c.RetryBackoff = DefaultRetryBackoff
	}
	if c.MaxRetryBackoff == 0 {
		c.MaxRetryBackoff = max(DefaultMaxRetryBackoff, c.RetryBackoff)
	}
	return c
}

// TypePollInterval is the poll interval of an object type: its own, else the
// daemon's.
func (c Daemon) TypePollInterval(spec objects.TypeSpec) time.Duration {
	if spec.PollInterval > 0 {
		return spec.PollInterval
	}
	return c.WithDefaults().PollInterval
}

// PollInterval is the poll interval of the object type name: its own,
// else the daemon's (also for a name the config does not declare).
func (c *Config) PollInterval(name string) time.Duration {
	if spec, ok := c.TypeSpec(name); ok {
		return c.Daemon.TypePollInterval(*spec)
	}
	return c.Daemon.WithDefaults().PollInterval
}

// validateDaemon checks the daemon section.
func (c *Config) validateDaemon() []error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, &objects.FieldError{Field: "daemon." + field, Msg: fmt.Sprintf(format, args...)})
	}
	d := c.Daemon
	if d.PollInterval < 0 {
		bad("pollInterval", "must not be negative")
	}
	if d.Jitter < 0 || d.Jitter >= 1 {
		bad("jitter", "%v must be at least 0 and less than 1", d.Jitter)
	}
	if d.MaxConcurrentBuilds < 0 {
		bad("maxConcurrentBuilds", "must not be negative")
	}
	if d.RetryBackoff < 0 {
		bad("retryBackoff", "must not be negative")
	}
	if d.MaxRetryBackoff < 0 {
		bad("maxRetryBackoff", "must not be negative")
	} else if d.MaxRetryBackoff > 0 && d.MaxRetryBackoff < d.RetryBackoff {
		bad("maxRetryBackoff", "%s is less than retryBackoff %s", d.MaxRetryBackoff, d.RetryBackoff)
	}
	return errs
}
