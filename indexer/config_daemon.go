package indexer

// DaemonConfig configures the build scheduling of `indexer serve`.
type DaemonConfig struct{}

// validateDaemon checks the daemon section.
func (c *Config) validateDaemon() []error { return nil }
