package api_test

import (
	"net/http"
	"testing"
)

// BenchmarkLoadLinks measures a page of 100 links at the start of a set
// and three quarters into it, through each kind of link, over 20,000
// customers, 100,000 orders and their join rows: the cost of a page
// should follow the page, not how deep it is nor the table.
//
//	go test ./api -run '^$' -bench BenchmarkLoadLinks -benchtime 200x
func BenchmarkLoadLinks(b *testing.B) {
	e := mustSizedLinksEnv(b, 1, 20_000, 100_000)
	for _, c := range []struct {
		src, link string
	}{{"Order", "customer"}, {"Customer", "orders"}, {"Order", "tags"}, {"Tag", "orders"}} {
		body := map[string]any{"objectSet": baseSet(c.src), "links": []string{c.link}, "pageSize": 10_000}
		// The tokens of the set's pages of 10,000: the fingerprint of a
		// token leaves out pageSize, so a page of 100 may start at one.
		var tokens []string
		for {
			m := e.ok(b, http.MethodPost, loadLinksPath, body)
			tok, ok := m["nextPageToken"].(string)
			if !ok {
				break
			}
			tokens = append(tokens, tok)
			body["pageToken"] = tok
		}
		if len(tokens) < 4 {
			b.Fatalf("%s.%s: %d pages of 10,000 links, want more", c.src, c.link, len(tokens)+1)
		}
		for _, at := range []struct {
			name  string
			token any
		}{{"first", nil}, {"deep", tokens[len(tokens)*3/4]}} {
			b.Run(c.src+"."+c.link+"/"+at.name, func(b *testing.B) {
				page := map[string]any{"objectSet": baseSet(c.src), "links": []string{c.link}, "pageSize": 100}
				if at.token != nil {
					page["pageToken"] = at.token
				}
				for b.Loop() {
					e.ok(b, http.MethodPost, loadLinksPath, page)
				}
			})
		}
	}
}
