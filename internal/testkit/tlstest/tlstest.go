package tlstest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// CA is a certificate authority that lives as long as a test.
type CA struct {
	Cert *x509.Certificate
	key  *ecdsa.PrivateKey
	// PEM is the CA certificate, PEM-encoded: what clients trust.
	PEM []byte
}

// Cert is an issued certificate with its key.
type Cert struct {
	Leaf    *x509.Certificate
	CertPEM []byte // the certificate, PEM
	KeyPEM  []byte // its private key, PKCS #8 PEM
}

// Files are the paths WriteFiles wrote.
type Files struct {
	CA   string // ca.pem: the CA certificate
	Cert string // cert.pem: the server certificate
	Key  string // key.pem: its private key
}

// NewCA makes a CA.
func NewCA() (*CA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("ca key: %w", err)
	}
	serial, err := newSerial()
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "ontoindex test CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("ca certificate: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("ca certificate: %w", err)
	}
	return &CA{Cert: cert, key: key, PEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}, nil
}

// MustCA makes a CA or fails tb.
func MustCA(tb testing.TB) *CA {
	tb.Helper()
	ca, err := NewCA()
	if err != nil {
		tb.Fatal(err)
	}
	return ca
}

// Pool is a pool holding the CA alone: a client's RootCAs, a server's
// ClientCAs.
func (ca *CA) Pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(ca.Cert)
	return p
}

// Server issues a server certificate for 127.0.0.1, ::1 and localhost.
func (ca *CA) Server() (*Cert, error) {
	return ca.issue(&x509.Certificate{
		Subject:     pkix.Name{CommonName: "localhost"},
		DNSNames:    []string{"localhost"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	})
}

// Client issues a client certificate with name as its common name.
func (ca *CA) Client(name string) (*Cert, error) {
	return ca.issue(&x509.Certificate{
		Subject:     pkix.Name{CommonName: name},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	})
}

// MustServer is Server, failing tb on an error.
func (ca *CA) MustServer(tb testing.TB) *Cert {
	tb.Helper()
	c, err := ca.Server()
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// MustClient is Client, failing tb on an error.
func (ca *CA) MustClient(tb testing.TB, name string) *Cert {
	tb.Helper()
	c, err := ca.Client(name)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

func (ca *CA) issue(tmpl *x509.Certificate) (*Cert, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("key: %w", err)
	}
	if tmpl.SerialNumber, err = newSerial(); err != nil {
		return nil, err
	}
	tmpl.NotBefore = time.Now().Add(-time.Hour)
	tmpl.NotAfter = time.Now().Add(24 * time.Hour)
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, &key.PublicKey, ca.key)
	if err != nil {
		return nil, fmt.Errorf("certificate: %w", err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("certificate: %w", err)
	}
	pk, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("key: %w", err)
	}
	return &Cert{
		Leaf:    leaf,
		CertPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		KeyPEM:  pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pk}),
	}, nil
}

// TLS is the certificate as crypto/tls takes it: a client's
// Certificates.
func (c *Cert) TLS() tls.Certificate {
	cert, err := tls.X509KeyPair(c.CertPEM, c.KeyPEM)
	if err != nil {
		panic(fmt.Sprintf("tlstest: a certificate it made does not load: %v", err)) // cannot happen
	}
	return cert
}

// Write writes the certificate and its key to certFile and keyFile (the
// key readable by its owner only), each replaced by a rename so that a
// server watching them never reads half a file.
func (c *Cert) Write(certFile, keyFile string) error {
	if err := writeFile(certFile, c.CertPEM, 0o644); err != nil {
		return err
	}
	return writeFile(keyFile, c.KeyPEM, 0o600)
}

// WriteFiles makes a CA and a server certificate for 127.0.0.1, ::1 and
// localhost and writes ca.pem, cert.pem and key.pem into dir: what a
// server config's server.tls and a client outside Go (NODE_EXTRA_CA_CERTS)
// need.
func WriteFiles(dir string) (Files, *CA, error) {
	ca, err := NewCA()
	if err != nil {
		return Files{}, nil, err
	}
	srv, err := ca.Server()
	if err != nil {
		return Files{}, nil, err
	}
	f := Files{CA: filepath.Join(dir, "ca.pem"), Cert: filepath.Join(dir, "cert.pem"), Key: filepath.Join(dir, "key.pem")}
	if err := writeFile(f.CA, ca.PEM, 0o644); err != nil {
		return Files{}, nil, err
	}
	if err := srv.Write(f.Cert, f.Key); err != nil {
		return Files{}, nil, err
	}
	return f, ca, nil
}

// MustWriteFiles is WriteFiles into a temporary directory of tb.
func MustWriteFiles(tb testing.TB) (Files, *CA) {
	tb.Helper()
	f, ca, err := WriteFiles(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	return f, ca
}

func writeFile(path string, b []byte, perm os.FileMode) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, perm); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return errors.Join(fmt.Errorf("write %s: %w", path, err), os.Remove(tmp))
	}
	return nil
}

func newSerial() (*big.Int, error) {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, fmt.Errorf("serial: %w", err)
	}
	return n.Add(n, big.NewInt(1)), nil
}
