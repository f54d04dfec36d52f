package api

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ontoindex/ontoindex/api/serverconfig"
)

// TLS: the server's certificate, key and client CAs are read from the
// files of server.tls, and read again when they change (a certificate
// renewed by a tool such as certbot takes effect without a restart) and
// on Reload (SIGHUP). Each handshake takes the config of the files last
// loaded (tls.Config.GetConfigForClient), so new files apply to new
// connections; connections already open keep theirs. Files that do not
// load leave the last good ones in use, and the error names the file.

// certCheckInterval is how often a handshake looks at the files' size and
// modification time: stat calls once a second at most, whatever the rate
// of new connections.
const certCheckInterval = time.Second

// certificates holds the TLS config of the files last loaded.
type certificates struct {
	files   serverconfig.TLS // paths resolved against the config's directory
	log     *slog.Logger
	every   atomic.Int64 // nanoseconds between looks: certCheckInterval; tests change it
	current atomic.Pointer[tlsFiles]
	checked atomic.Int64 // time.Now().UnixNano() of the last look at the files

	mu     sync.Mutex // one load at a time
	failed fileStamps // the files of the last load that failed: not loaded again until they change
}

// tlsFiles is a loaded config and the stamps of the files it was read from.
type tlsFiles struct {
	config *tls.Config
	stamps fileStamps
}

// fileStamp is what tells a file changed, without reading it.
type fileStamp struct {
	size int64
	mod  time.Time
}

// fileStamps are those of the cert, key and client CA files, in that order.
type fileStamps [3]fileStamp

// newCertificates loads the files of cfg.
func newCertificates(cfg serverconfig.TLS, log *slog.Logger) (*certificates, error) {
	c := &certificates{files: cfg, log: log}
	c.every.Store(int64(certCheckInterval))
	if err := c.reload(); err != nil {
		return nil, err
	}
	c.checked.Store(time.Now().UnixNano())
	return c, nil
}

// serverConfig is the tls.Config of the http.Server: each handshake gets
// the config of the files last loaded. It carries the minimum version and
// the protocols too, as net/http reads them from it.
func (c *certificates) serverConfig() *tls.Config {
	cur := c.current.Load().config
	return &tls.Config{
		MinVersion:         cur.MinVersion,
		NextProtos:         cur.NextProtos,
		GetConfigForClient: c.configForClient,
	}
}

func (c *certificates) configForClient(*tls.ClientHelloInfo) (*tls.Config, error) {
	c.check()
	return c.current.Load().config, nil
}

// check loads the files again when their stamps changed, at most once
// every c.every.
func (c *certificates) check() {
	now := time.Now().UnixNano()
	last := c.checked.Load()
	if now-last < c.every.Load() || !c.checked.CompareAndSwap(last, now) {
		return
	}
	stamps, err := c.stamp()
	if err != nil || stamps == c.current.Load().stamps {
		return // a file that is away for a moment (being replaced) keeps the loaded config
	}
	c.mu.Lock()
	failedBefore := stamps == c.failed
	c.mu.Unlock()
	if failedBefore {
		return // logged once when it failed
	}
	if err := c.reload(); err != nil {
		c.log.Error("TLS files changed but do not load; the server keeps the ones it has", "error", err)
	}
}

// reload loads the files; on an error it keeps the config it has.
func (c *certificates) reload() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	stamps, err := c.stamp()
	if err != nil {
		return err
	}
	cfg, err := loadTLS(c.files)
	if err != nil {
		c.failed = stamps
		return err
	}
	c.failed = fileStamps{}
	prev := c.current.Swap(&tlsFiles{config: cfg, stamps: stamps})
	if prev != nil {
		leaf := cfg.Certificates[0].Leaf
		c.log.Info("TLS files loaded", "certFile", c.files.CertFile, "serial", leaf.SerialNumber.String(), "notAfter", leaf.NotAfter)
	}
	return nil
}

// stamp reads the stamps of the files.
func (c *certificates) stamp() (fileStamps, error) {
	var out fileStamps
	for i, f := range []struct{ field, path string }{
		{"certFile", c.files.CertFile}, {"keyFile", c.files.KeyFile}, {"clientCAFile", c.files.ClientCAFile},
	} {
		if f.path == "" {
			continue
		}
		fi, err := os.Stat(f.path)
		if err != nil {
			return out, fmt.Errorf("server.tls.%s: %w", f.field, err)
		}
		out[i] = fileStamp{size: fi.Size(), mod: fi.ModTime()}
	}
	return out, nil
}

// loadTLS reads the files of cfg into the config of a handshake.
func loadTLS(cfg serverconfig.TLS) (*tls.Config, error) {
	certPEM, err := os.ReadFile(cfg.CertFile)
	if err != nil {
		return nil, fmt.Errorf("server.tls.certFile: %w", err)
	}
	keyPEM, err := os.ReadFile(cfg.KeyFile)
	if err != nil {
		return nil, fmt.Errorf("server.tls.keyFile: %w", err)
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		// crypto/tls says which input it refused: the certificate or the key.
		return nil, fmt.Errorf("server.tls.certFile %s and keyFile %s: %w", cfg.CertFile, cfg.KeyFile, err)
	}
	if cert.Leaf == nil {
		return nil, errors.New("server.tls.certFile " + cfg.CertFile + ": no certificate")
	}
	out := &tls.Config{
		Certificates: []tls.Certificate{cert},
		MinVersion:   tls.VersionTLS12,
		// h2 first: net/http serves HTTP/2 to the clients that offer it.
		NextProtos: []string{"h2", "http/1.1"},
	}
	if cfg.MinVersion == serverconfig.TLSVersion13 {
		out.MinVersion = tls.VersionTLS13
	}
	if cfg.ClientCAFile != "" {
		caPEM, err := os.ReadFile(cfg.ClientCAFile)
		if err != nil {
			return nil, fmt.Errorf("server.tls.clientCAFile: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(caPEM) {
			return nil, fmt.Errorf("server.tls.clientCAFile %s: no PEM certificate in it", cfg.ClientCAFile)
		}
		out.ClientCAs = pool
		out.ClientAuth = tls.RequireAndVerifyClientCert
		if cfg.ClientAuth == serverconfig.ClientAuthVerifyIfGiven {
			out.ClientAuth = tls.VerifyClientCertIfGiven
		}
	}
	return out, nil
}
