package serverconfig

import (
	"fmt"
	"time"

	"github.com/ontoindex/ontoindex/objects"
)

// TLS configures HTTPS. Relative paths are relative to the config file.
// The files are read again when they change and on a reload, without a
// restart (api/tls.go).
type TLS struct {
	// CertFile and KeyFile are the server's certificate chain and private
	// key, PEM.
	CertFile string `yaml:"certFile" json:"certFile,omitempty"`
	KeyFile  string `yaml:"keyFile" json:"keyFile,omitempty"`
	// ClientCAFile, when set, holds the PEM certificates of the CAs that
	// sign client certificates.
	ClientCAFile string `yaml:"clientCAFile" json:"clientCAFile,omitempty"`
	// ClientAuth is require (the default with a client CA file) or
	// verifyIfGiven.
	ClientAuth string `yaml:"clientAuth" json:"clientAuth,omitempty"`
	// MinVersion is the oldest TLS version accepted: 1.2 (the default) or
	// 1.3.
	MinVersion string `yaml:"minVersion" json:"minVersion,omitempty"`
}

// Client authentication modes of TLS.ClientAuth, and TLS versions.
const (
	ClientAuthRequire       = "require"
	ClientAuthVerifyIfGiven = "verifyIfGiven"
	TLSVersion12            = "1.2"
	TLSVersion13            = "1.3"
)

// Enabled reports whether the server serves HTTPS.
func (t TLS) Enabled() bool { return t.CertFile != "" }

// validateConnection checks the TLS section and the connection timeouts,
// and fills in their defaults.
func validateConnection(s *Server) []error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, &objects.FieldError{Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	t := &s.TLS
	switch {
	case t.CertFile == "" && t.KeyFile != "":
		bad("server.tls.certFile", "is required with server.tls.keyFile")
	case t.CertFile != "" && t.KeyFile == "":
		bad("server.tls.keyFile", "is required with server.tls.certFile")
	case t.CertFile == "" && (t.ClientCAFile != "" || t.ClientAuth != "" || t.MinVersion != ""):
		bad("server.tls.certFile", "is required: the other server.tls keys apply only to a server with a certificate")
	}
	switch t.ClientAuth {
	case "":
		if t.ClientCAFile != "" {
			t.ClientAuth = ClientAuthRequire
		}
	case ClientAuthRequire, ClientAuthVerifyIfGiven:
		if t.ClientCAFile == "" {
			bad("server.tls.clientCAFile", "is required with server.tls.clientAuth (the CAs that sign client certificates)")
		}
	default:
		bad("server.tls.clientAuth", "%q is not %s or %s", t.ClientAuth, ClientAuthRequire, ClientAuthVerifyIfGiven)
	}
	switch t.MinVersion {
	case "":
		if t.CertFile != "" {
			t.MinVersion = TLSVersion12
		}
	case TLSVersion12, TLSVersion13:
	default:
		bad("server.tls.minVersion", "%q is not %q or %q", t.MinVersion, TLSVersion12, TLSVersion13)
	}
	durations := []struct {
		field string
		v     *time.Duration
		def   time.Duration
	}{
		{"server.readHeaderTimeout", &s.ReadHeaderTimeout, DefaultReadHeaderTimeout},
		{"server.readTimeout", &s.ReadTimeout, DefaultReadTimeout},
		{"server.idleTimeout", &s.IdleTimeout, DefaultIdleTimeout},
	}
	for _, d := range durations {
		switch {
		case *d.v < 0:
			bad(d.field, "must not be negative")
		case *d.v == 0:
			*d.v = d.def
		}
	}
	switch {
	case s.WriteTimeout < 0:
		bad("server.writeTimeout", "must not be negative")
	case s.WriteTimeout == 0:
		s.WriteTimeout = s.ReadTimeout + s.RequestTimeout + DefaultWriteMargin
	case s.WriteTimeout <= s.RequestTimeout:
		bad("server.writeTimeout", "%s must exceed server.requestTimeout (%s): it runs from the end of a request's headers to the end of its response", s.WriteTimeout, s.RequestTimeout)
	}
	if s.ReadTimeout > 0 && s.ReadTimeout < s.ReadHeaderTimeout {
		bad("server.readTimeout", "%s is shorter than server.readHeaderTimeout (%s): it bounds the headers and the body together", s.ReadTimeout, s.ReadHeaderTimeout)
	}
	switch {
	case s.MaxHeaderBytes < 0:
		bad("server.maxHeaderBytes", "must not be negative")
	case s.MaxHeaderBytes == 0:
		s.MaxHeaderBytes = DefaultMaxHeaderBytes
	}
	return errs
}
