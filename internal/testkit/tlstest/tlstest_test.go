package tlstest_test

import (
	"crypto/tls"
	"crypto/x509"
	"os"
	"testing"

	"github.com/ontoindex/ontoindex/internal/testkit/tlstest"
)

func TestWriteFiles(t *testing.T) {
	files, ca := tlstest.MustWriteFiles(t)
	cert, err := tls.LoadX509KeyPair(files.Cert, files.Key)
	if err != nil {
		t.Fatal(err)
	}
	caPEM, err := os.ReadFile(files.CA)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(caPEM) {
		t.Fatal("ca.pem holds no certificate")
	}
	for _, name := range []string{"127.0.0.1", "::1", "localhost"} {
		if _, err := cert.Leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: name}); err != nil {
			t.Errorf("the server certificate for %s: %v", name, err)
		}
	}
	if fi, err := os.Stat(files.Key); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("key.pem: %v: want it readable by its owner only", err)
	}
	client := ca.MustClient(t, "app")
	if _, err := client.Leaf.Verify(x509.VerifyOptions{Roots: ca.Pool(), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Errorf("client certificate: %v", err)
	}
	if a, b := ca.MustServer(t), ca.MustServer(t); a.Leaf.SerialNumber.Cmp(b.Leaf.SerialNumber) == 0 {
		t.Error("two certificates share a serial")
	}
}
