// Package tlstest makes a throwaway certificate authority and the
// certificates tests serve and present: a server certificate for
// 127.0.0.1, ::1 and localhost, client certificates, and the PEM files a
// server config names (WriteFiles: ca.pem, cert.pem, key.pem). Keys are
// ECDSA P-256, made fresh for every CA and certificate; every certificate
// has a serial of its own, so that a test can tell which one a server
// presents.
package tlstest
