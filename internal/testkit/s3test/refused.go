package s3test

import (
	"fmt"
	"net"
	"testing"
)

// RefusedEndpoint is an S3 endpoint on loopback where nothing listens, on
// a port whose number has 301 in it. gocloud's S3 driver takes any failed
// request whose message holds "301" for the redirect of a missing bucket
// (not found), so a test of an unreachable store that uses this endpoint
// meets that guess every time, not once in a few hundred runs.
func RefusedEndpoint(tb testing.TB) string {
	tb.Helper()
	// 30100-30199 lie below Linux's ephemeral range (32768 up): no test
	// server gets one by asking for a free port.
	for port := 30100; port < 30200; port++ {
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			continue
		}
		ln.Close()
		return fmt.Sprintf("http://127.0.0.1:%d", port)
	}
	tb.Fatal("no free loopback port in 30100-30199")
	return ""
}
