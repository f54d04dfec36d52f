package api_test

import (
	"bufio"
	"crypto/tls"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ontoindex/ontoindex/api"
	"github.com/ontoindex/ontoindex/api/serverconfig"
	"github.com/ontoindex/ontoindex/internal/testkit/tlstest"
)

// mustServeTLS serves the demo over TLS with the files of a fresh test
// CA; tune may change the TLS section.
func mustServeTLS(tb testing.TB, tune func(*serverconfig.TLS)) (*served, tlstest.Files, *tlstest.CA) {
	tb.Helper()
	files, ca := tlstest.MustWriteFiles(tb)
	s := mustServe(tb, func(c *indexerConfig) {
		c.Server.TLS = serverconfig.TLS{CertFile: files.Cert, KeyFile: files.Key}
		c.Server.ReadHeaderTimeout = 200 * time.Millisecond
		if tune != nil {
			tune(&c.Server.TLS)
		}
	})
	return s, files, ca
}

// handshake connects to s with cfg (its RootCAs the CA's) and returns the
// connection state.
func handshake(s *served, ca *tlstest.CA, cfg *tls.Config) (tls.ConnectionState, error) {
	if cfg == nil {
		cfg = &tls.Config{}
	}
	cfg.RootCAs = ca.Pool()
	cfg.ServerName = "127.0.0.1"
	conn, err := tls.Dial("tcp", s.addr, cfg)
	if err != nil {
		return tls.ConnectionState{}, err
	}
	defer conn.Close()
	// The server checks a client certificate in the handshake, which TLS
	// 1.3 finishes on the client's side first: an answer shows the verdict.
	if _, err := conn.Write([]byte("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")); err != nil {
		return tls.ConnectionState{}, err
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return tls.ConnectionState{}, err
	}
	resp.Body.Close()
	return conn.ConnectionState(), nil
}

func TestServer_Serve_TLS(t *testing.T) {
	s, _, ca := mustServeTLS(t, nil)
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: ca.Pool()}, ForceAttemptHTTP2: true}
	defer tr.CloseIdleConnections()
	t.Run("HTTP/2", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodGet, "https://"+s.addr+ontologyPath+"/objects/Employee/10", nil)
		req.Header.Set("Authorization", "Bearer "+appToken)
		resp, err := (&http.Client{Transport: tr}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.ProtoMajor != 2 {
			t.Fatalf("status %d over %s, want 200 over HTTP/2", resp.StatusCode, resp.Proto)
		}
	})
	t.Run("HTTP/1.1", func(t *testing.T) {
		h1 := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: ca.Pool()}, TLSNextProto: map[string]func(string, *tls.Conn) http.RoundTripper{}}
		defer h1.CloseIdleConnections()
		if _, err := s.get(&http.Client{Transport: h1}, "https", ontologyPath+"/objects/Employee/10"); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("cleartext is refused", func(t *testing.T) {
		if _, err := s.get(http.DefaultClient, "http", "/healthz"); err == nil {
			t.Fatal("a cleartext request was answered with 200")
		}
	})
	t.Run("a connection that sends no handshake", func(t *testing.T) {
		readsEnd(t, mustDial(t, s))
	})
}

func TestServer_Serve_TLSVersions(t *testing.T) {
	for _, tt := range []struct {
		min, client string
		ok          bool
	}{
		{"", "1.2", true},
		{"1.2", "1.3", true},
		{"1.3", "1.3", true},
		{"1.3", "1.2", false},
	} {
		t.Run("min "+tt.min+" client "+tt.client, func(t *testing.T) {
			s, _, ca := mustServeTLS(t, func(c *serverconfig.TLS) { c.MinVersion = tt.min })
			v := uint16(tls.VersionTLS12)
			if tt.client == "1.3" {
				v = tls.VersionTLS13
			}
			st, err := handshake(s, ca, &tls.Config{MinVersion: v, MaxVersion: v})
			if (err == nil) != tt.ok {
				t.Fatalf("handshake: %v, want ok %v", err, tt.ok)
			}
			if err == nil && st.Version != v {
				t.Fatalf("version %x, want %x", st.Version, v)
			}
		})
	}
}

func TestServer_Serve_clientCertificates(t *testing.T) {
	other := tlstest.MustCA(t)
	for _, tt := range []struct {
		mode       string
		cert       string // "", "good" (signed by the client CA), "other" (another CA)
		handshakes bool
	}{
		{"", "", false}, // require, the default with a CA file
		{"", "good", true},
		{"", "other", false},
		{"require", "good", true},
		{"verifyIfGiven", "", true},
		{"verifyIfGiven", "good", true},
		{"verifyIfGiven", "other", false},
	} {
		t.Run(tt.mode+" cert "+tt.cert, func(t *testing.T) {
			clientCA := tlstest.MustCA(t)
			caFile := t.TempDir() + "/clients.pem"
			if err := os.WriteFile(caFile, clientCA.PEM, 0o644); err != nil {
				t.Fatal(err)
			}
			s, _, ca := mustServeTLS(t, func(c *serverconfig.TLS) { c.ClientCAFile, c.ClientAuth = caFile, tt.mode })
			cfg := &tls.Config{}
			switch tt.cert {
			case "good":
				cfg.Certificates = []tls.Certificate{clientCA.MustClient(t, "app").TLS()}
			case "other":
				cfg.Certificates = []tls.Certificate{other.MustClient(t, "app").TLS()}
			}
			_, err := handshake(s, ca, cfg)
			if (err == nil) != tt.handshakes {
				t.Fatalf("handshake: %v, want ok %v", err, tt.handshakes)
			}
		})
	}
}

// serial is the serial of the certificate the server presents to a new
// connection.
func serial(tb testing.TB, s *served, ca *tlstest.CA) string {
	tb.Helper()
	st, err := handshake(s, ca, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return st.PeerCertificates[0].SerialNumber.String()
}

func TestServer_Serve_certificateReload(t *testing.T) {
	t.Run("when the files change", func(t *testing.T) {
		s, files, ca := mustServeTLS(t, nil)
		api.SetCertCheckInterval(s.api, 0) // every handshake looks
		first := serial(t, s, ca)
		next := ca.MustServer(t)
		if err := next.Write(files.Cert, files.Key); err != nil {
			t.Fatal(err)
		}
		if got := serial(t, s, ca); got != next.Leaf.SerialNumber.String() {
			t.Fatalf("serial %s after the files changed, want the new %s (first %s)", got, next.Leaf.SerialNumber, first)
		}
		// A file that does not load keeps the last good certificate.
		if err := os.WriteFile(files.Cert, []byte("not a certificate"), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := serial(t, s, ca); got != next.Leaf.SerialNumber.String() {
			t.Fatalf("serial %s after a bad file, want the last good %s", got, next.Leaf.SerialNumber)
		}
	})
	t.Run("on reload", func(t *testing.T) {
		s, files, ca := mustServeTLS(t, nil)
		api.SetCertCheckInterval(s.api, time.Hour) // only a reload reads them
		first := serial(t, s, ca)
		next := ca.MustServer(t)
		if err := next.Write(files.Cert, files.Key); err != nil {
			t.Fatal(err)
		}
		if got := serial(t, s, ca); got != first {
			t.Fatalf("serial %s before the reload, want the first %s", got, first)
		}
		// Reload reads them even without a daemon (it then refuses the
		// rest of the reload).
		if _, err := s.api.Reload(t.Context()); err == nil || strings.Contains(err.Error(), "tls") {
			t.Fatalf("Reload: %v, want the no-daemon refusal after the TLS files loaded", err)
		}
		if got := serial(t, s, ca); got != next.Leaf.SerialNumber.String() {
			t.Fatalf("serial %s after Reload, want the new %s", got, next.Leaf.SerialNumber)
		}
		if err := os.WriteFile(files.Key, []byte("not a key"), 0o600); err != nil {
			t.Fatal(err)
		}
		err := s.api.ReloadCertificates()
		if err == nil || !strings.Contains(err.Error(), files.Key) {
			t.Fatalf("ReloadCertificates with a bad key: %v, want an error naming %s", err, files.Key)
		}
		if got := serial(t, s, ca); got != next.Leaf.SerialNumber.String() {
			t.Fatalf("serial %s after a bad reload, want the last good %s", got, next.Leaf.SerialNumber)
		}
	})
}
