package api_test

import (
	"bufio"
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestServer_requestLog checks the request log line: the route pattern
// (not only the path), the status, the duration and the token's name,
// never the token, for routes served by the API's handlers, by plain chi
// handlers (rebuild) and for paths no route serves.
func TestServer_requestLog(t *testing.T) {
	e := mustEnv(t)
	for _, tt := range []struct {
		name, method, path, token string
		want                      map[string]string
	}{
		{"get by key", http.MethodGet, ontologyPath + "/objects/Employee/10", appToken, map[string]string{
			"route": "/api/v2/ontologies/{ontology}/objects/{objectType}/{primaryKey}", "status": "200", "token": "app"}},
		{"search", http.MethodPost, ontologyPath + "/objects/Employee/search", appToken, map[string]string{
			"route": "/api/v2/ontologies/{ontology}/objects/{objectType}/search", "status": "200", "token": "app"}},
		{"hidden type", http.MethodGet, ontologyPath + "/objects/Employee/10", limitedToken, map[string]string{
			"route": "/api/v2/ontologies/{ontology}/objects/{objectType}/{primaryKey}", "status": "404", "token": "limited", "errorName": "ObjectTypeNotFound"}},
		{"chi handler", http.MethodPost, "/api/indexer/v1/objectTypes/Employee/rebuild", adminToken, map[string]string{
			"route": "/api/indexer/v1/objectTypes/{objectType}/rebuild", "token": "ops"}},
		{"unmatched", http.MethodGet, "/api/v2/nowhere", appToken, map[string]string{
			"route": "unmatched", "status": "404", "errorName": "ApiNotFound"}},
		{"unauthenticated", http.MethodGet, ontologyPath + "/objects/Employee", "wrong-token-0123456789", map[string]string{
			"route": "/api/v2/ontologies/{ontology}/objects/{objectType}", "status": "401", "errorName": "InvalidCredentials"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e.logs.Reset()
			var body *strings.Reader
			if tt.method == http.MethodPost {
				body = strings.NewReader(`{"pageSize":2}`)
			} else {
				body = strings.NewReader("")
			}
			req := httptest.NewRequest(tt.method, tt.path, body)
			req.Header.Set("Authorization", "Bearer "+tt.token)
			req.Header.Set("Content-Type", "application/json")
			e.api.Handler().ServeHTTP(httptest.NewRecorder(), req) // returns after the log line
			line := requestLine(t, e.logs.Bytes())
			for k, v := range tt.want {
				if line[k] != v {
					t.Errorf("%s = %q, want %q (line %v)", k, line[k], v, line)
				}
			}
			if line["path"] != tt.path || line["method"] != tt.method || line["ms"] == "" || line["status"] == "" {
				t.Errorf("line %v lacks method, path, status or ms", line)
			}
			for _, secret := range []string{appToken, limitedToken, adminToken, "wrong-token-0123456789"} {
				if k, ok := holds(line, secret); ok {
					t.Errorf("%s holds a token: %v", k, line)
				}
			}
		})
	}
}

// requestLine parses the one request log line of logs (slog's text
// format, as mustEnv's logger writes it).
func requestLine(tb testing.TB, logs []byte) map[string]string {
	tb.Helper()
	var found map[string]string
	sc := bufio.NewScanner(bytes.NewReader(logs))
	for sc.Scan() {
		m := map[string]string{}
		for _, f := range splitLogfmt(sc.Text()) {
			k, v, _ := strings.Cut(f, "=")
			m[k] = v
		}
		if m["msg"] == "request" {
			if found != nil {
				tb.Fatalf("two request lines:\n%s", logs)
			}
			found = m
		}
	}
	if found == nil {
		tb.Fatalf("no request line:\n%s", logs)
	}
	return found
}

// splitLogfmt splits a logfmt line at the blanks outside quotes, and
// unquotes the values.
func splitLogfmt(line string) []string {
	var out []string
	var cur strings.Builder
	quoted := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '\\' && quoted && i+1 < len(line):
			i++
			cur.WriteByte(line[i])
		case c == '"':
			quoted = !quoted
		case c == ' ' && !quoted:
			out = append(out, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	return append(out, cur.String())
}

func holds(line map[string]string, s string) (string, bool) {
	for k, v := range line {
		if strings.Contains(v, s) {
			return k, true
		}
	}
	return "", false
}
