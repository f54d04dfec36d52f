package config

import (
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// Redacted is what a secret is replaced with.
const Redacted = "***"

// minSecret is the shortest value redacted: shorter ones would garble
// every message they happen to occur in.
const minSecret = 4

// secretProperty reports whether a catalog property holds a credential:
// s3.secret-access-key, s3.session-token, gcs.oauth2.token, the REST
// catalog's credential and token, adls.sas-token.*, account keys,
// connection strings, passwords.
func secretProperty(key string) bool {
	k := strings.ToLower(key)
	for _, s := range []string{"secret", "password", "token", "credential", "jsonkey", "sas-", "connection-string", "account.key", "private-key"} {
		if strings.Contains(k, s) {
			return true
		}
	}
	return strings.HasSuffix(k, ".key")
}

// dsnPassword finds password=... in a key/value connection string.
var dsnPassword = regexp.MustCompile(`(?i)\bpassword\s*=\s*('[^']*'|\S+)`)

// Secrets are the secret values of the catalog's properties: credentials,
// and the password of a connection URI (postgres://user:password@host/db,
// or password=... in a key/value string), as written and URL-decoded.
func (cc Catalog) Secrets() []string {
	var out []string
	for k, v := range cc.Properties {
		if secretProperty(k) {
			out = append(out, v)
		}
		out = append(out, uriPasswords(v)...)
	}
	return out
}

func uriPasswords(v string) []string {
	var out []string
	if u, err := url.Parse(v); err == nil && u.User != nil {
		if p, ok := u.User.Password(); ok {
			out = append(out, p)
			if _, raw, ok := strings.Cut(u.User.String(), ":"); ok {
				out = append(out, raw) // as written, percent-encoded
			}
		}
	}
	for _, m := range dsnPassword.FindAllStringSubmatch(v, -1) {
		out = append(out, strings.Trim(m[1], "'"))
	}
	return out
}

// Secrets are every secret of the config: those of its catalogs, the
// API tokens and the backends' passwords.
func (c *Config) Secrets() []string {
	var out []string
	for _, cc := range c.Catalogs {
		out = append(out, cc.Secrets()...)
	}
	for _, t := range c.Auth.Tokens {
		out = append(out, t.Token)
	}
	for _, b := range c.Backends {
		out = append(out, b.Password)
	}
	return out
}

// redact replaces every secret in s with Redacted, the longest first (a
// secret that contains another is replaced whole).
func redact(s string, secrets []string) string {
	secrets = slices.DeleteFunc(slices.Clone(secrets), func(x string) bool { return len(x) < minSecret })
	slices.SortFunc(secrets, func(a, b string) int { return len(b) - len(a) })
	for _, x := range secrets {
		s = strings.ReplaceAll(s, x, Redacted)
	}
	return s
}

// Redact returns s with every secret of the config replaced.
func (c *Config) Redact(s string) string { return redact(s, c.Secrets()) }
