package indexer

// ServerConfig configures the HTTP server of `indexer serve` (the search
// API and the ops endpoints). Owned by the API.
type ServerConfig struct {
	Listen string `yaml:"listen" json:"listen"`
}

// AuthConfig configures bearer-token authentication.
type AuthConfig struct {
	Tokens []TokenConfig `yaml:"tokens" json:"tokens"`
}

// TokenConfig is one API token.
type TokenConfig struct {
	Name        string   `yaml:"name" json:"name"`
	Token       string   `yaml:"token" json:"-"`
	SHA256      string   `yaml:"sha256" json:"-"`
	ObjectTypes []string `yaml:"objectTypes" json:"objectTypes"`
	Admin       bool     `yaml:"admin" json:"admin"`
}

// validateServer checks the server and auth sections.
func (c *Config) validateServer() []error { return nil }
