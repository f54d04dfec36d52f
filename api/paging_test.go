package api_test

import (
	"cmp"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ontoindex/ontoindex/internal/testkit/apidemo"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
)

// rowOrder orders demo rows like the API: by the fields, nulls last in
// both directions, then by primary key.
func rowOrder(fields ...string) func(a, b icebergtest.Row) int {
	return func(a, b icebergtest.Row) int {
		for _, f := range fields {
			name, dir, _ := strings.Cut(f, ":")
			x, y := a[name], b[name]
			switch {
			case x == nil && y == nil:
				continue
			case x == nil:
				return 1
			case y == nil:
				return -1
			}
			var c int
			switch xv := x.(type) {
			case int:
				c = cmp.Compare(xv, y.(int))
			case int64:
				// Sort fields hold exact order-preserving terms: longs
				// beyond 2^53 sort exactly.
				c = cmp.Compare(xv, y.(int64))
			case float64:
				c = cmp.Compare(xv, y.(float64))
			case bool:
				c = cmp.Compare(strconv.FormatBool(xv), strconv.FormatBool(y.(bool)))
			case string:
				if name == "salary" {
					fx, _ := strconv.ParseFloat(xv, 64)
					fy, _ := strconv.ParseFloat(y.(string), 64)
					c = cmp.Compare(fx, fy)
				} else {
					c = cmp.Compare(xv, y.(string))
				}
			}
			if dir == "desc" {
				c = -c
			}
			if c != 0 {
				return c
			}
		}
		return cmp.Compare(a["id"].(int64), b["id"].(int64))
	}
}

func sortedIDs(keep func(icebergtest.Row) bool, fields ...string) []string {
	rows := slices.DeleteFunc(apidemo.EmployeeRows(), func(r icebergtest.Row) bool { return !keep(r) })
	slices.SortStableFunc(rows, rowOrder(fields...))
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = fmt.Sprint(r["id"])
	}
	return out
}

func orderBody(fields ...string) map[string]any {
	var fs []any
	for _, f := range fields {
		name, dir, _ := strings.Cut(f, ":")
		fs = append(fs, map[string]any{"field": name, "direction": dir})
	}
	return map[string]any{"fields": fs}
}

func TestSearch_paging(t *testing.T) {
	e := mustEnv(t)
	all := func(icebergtest.Row) bool { return true }
	active := func(r icebergtest.Row) bool { return r["active"] == true }
	tests := []struct {
		name   string
		where  string
		keep   func(icebergtest.Row) bool
		fields []string
	}{
		{"primary key order", "", all, nil},
		{"filter in primary key order", `{"type":"eq","field":"active","value":true}`, active, nil},
		{"integer asc with nulls", "", all, []string{"age:asc"}},
		{"integer desc with nulls", "", all, []string{"age:desc"}},
		{"decimal desc", "", all, []string{"salary:desc"}},
		{"double asc with nulls", "", all, []string{"rating:asc"}},
		{"text asc", "", all, []string{"name:asc"}},
		{"date desc", "", all, []string{"hired:desc"}},
		{"timestamp asc", "", all, []string{"updated:asc"}},
		{"long desc beyond 2^53 (exact order)", "", all, []string{"big:desc"}},
		{"boolean then keyword", "", all, []string{"active:asc", "dept:desc"}},
		{"keyword then integer, filtered", `{"type":"gt","field":"age","value":25}`, func(r icebergtest.Row) bool { return r["age"] != nil && intOf(r["age"]) > 25 }, []string{"dept:asc", "age:desc"}},
	}
	for _, tt := range tests {
		for _, size := range []int{1, 5, 7, 100} {
			t.Run(fmt.Sprintf("%s/pageSize=%d", tt.name, size), func(t *testing.T) {
				want := sortedIDs(tt.keep, tt.fields...)
				var got []string
				tok := ""
				for pages := 0; ; pages++ {
					body := map[string]any{"pageSize": size, "orderBy": orderBody(tt.fields...)}
					if tt.where != "" {
						body["where"] = where(tt.where)
					}
					if tok != "" {
						body["pageToken"] = tok
					}
					objs, resp := e.search(t, "Employee", body)
					if len(objs) > size {
						t.Fatalf("page of %d objects, pageSize %d", len(objs), size)
					}
					if resp["totalCount"] != fmt.Sprint(len(want)) {
						t.Fatalf("totalCount %v, want %d", resp["totalCount"], len(want))
					}
					got = append(got, ids(objs)...)
					next, _ := resp["nextPageToken"].(string)
					if next == "" {
						break
					}
					// The same token gives the same page.
					body["pageToken"] = next
					again, _ := e.search(t, "Employee", body)
					body["pageToken"] = next
					again2, _ := e.search(t, "Employee", body)
					if !slices.Equal(ids(again), ids(again2)) {
						t.Fatalf("token %s gave %v, then %v", next, ids(again), ids(again2))
					}
					tok = next
					if pages > len(want)+1 {
						t.Fatal("paging does not end")
					}
				}
				if !slices.Equal(got, want) {
					t.Fatalf("pages gave\n%v\nwant\n%v", got, want)
				}
			})
		}
	}
}

func TestListObjects_paging(t *testing.T) {
	e := mustEnv(t)
	for _, tt := range []struct {
		orderBy string
		fields  []string
	}{
		{"", nil},
		{"properties.age:desc,p.name", []string{"age:desc", "name:asc"}},
		{"p.hired:asc", []string{"hired:asc"}},
	} {
		t.Run(tt.orderBy, func(t *testing.T) {
			want := sortedIDs(func(icebergtest.Row) bool { return true }, tt.fields...)
			var got []string
			tok := ""
			for {
				q := url.Values{"pageSize": {"9"}}
				if tt.orderBy != "" {
					q.Set("orderBy", tt.orderBy)
				}
				if tok != "" {
					q.Set("pageToken", tok)
				}
				m := e.ok(t, http.MethodGet, ontologyPath+"/objects/Employee?"+q.Encode(), nil)
				if m["totalCount"] != "48" {
					t.Fatalf("totalCount %v", m["totalCount"])
				}
				got = append(got, ids(objectsOf(t, m))...)
				tok, _ = m["nextPageToken"].(string)
				if tok == "" {
					break
				}
			}
			if !slices.Equal(got, want) {
				t.Fatalf("got %v\nwant %v", got, want)
			}
		})
	}
}

func TestSearch_pageTokenErrors(t *testing.T) {
	// A string no server made is told apart from a token of another request.
	const notAToken = "not a page token: pass the nextPageToken of a previous response, unchanged"
	const otherRequest = "the token was not returned for this request"
	e := mustEnv(t)
	search := ontologyPath + "/objects/Employee/search"
	first := e.ok(t, http.MethodPost, search, map[string]any{"pageSize": 2, "orderBy": orderBody("age:asc")})
	tok := first["nextPageToken"].(string)
	listed := e.ok(t, http.MethodGet, ontologyPath+"/objects/Employee?pageSize=2", nil)
	listTok := listed["nextPageToken"].(string)
	tests := []struct {
		name    string
		body    map[string]any
		message string
	}{
		{"garbage", map[string]any{"pageToken": "not-a-token!"}, notAToken},
		{"base64 garbage", map[string]any{"pageToken": "AAAAAAAAAAAAAAAA"}, notAToken},
		{"other order", map[string]any{"pageToken": tok, "orderBy": orderBody("age:desc")}, otherRequest},
		{"other filter", map[string]any{"pageToken": tok, "orderBy": orderBody("age:asc"), "where": where(`{"type":"eq","field":"dept","value":"Sales"}`)}, otherRequest},
		{"token of a listing", map[string]any{"pageToken": listTok}, otherRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := e.fail(t, http.MethodPost, search, tt.body, 400, "InvalidPageToken")
			if msg, _ := m["message"].(string); !strings.Contains(msg, tt.message) {
				t.Errorf("message = %q, want it to contain %q", msg, tt.message)
			}
		})
	}
	t.Run("other type", func(t *testing.T) {
		e.fail(t, http.MethodPost, ontologyPath+"/objects/Assignment/search", map[string]any{"pageToken": tok, "orderBy": orderBody("hours:asc")}, 400, "InvalidPageToken")
	})
	t.Run("list", func(t *testing.T) {
		for _, c := range []struct{ path, message string }{
			{ontologyPath + "/objects/Employee?pageToken=xyz", notAToken},
			{ontologyPath + "/objects/Employee?orderBy=p.age&pageToken=" + listTok, otherRequest},
			{ontologyPath + "/objectTypes?pageToken=xyz", notAToken},
		} {
			m := e.fail(t, http.MethodGet, c.path, nil, 400, "InvalidPageToken")
			if msg, _ := m["message"].(string); !strings.Contains(msg, c.message) {
				t.Errorf("%s: message = %q, want it to contain %q", c.path, msg, c.message)
			}
		}
	})
}

func TestSearch_pageSize(t *testing.T) {
	e := mustEnv(t, func(c *indexerConfig) { c.Server.MaxPageSize = 20; c.Server.DefaultPageSize = 10 })
	search := ontologyPath + "/objects/Employee/search"
	for _, size := range []any{0, -1, 21, 1000000} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			e.fail(t, http.MethodPost, search, map[string]any{"pageSize": size}, 400, "InvalidPageSize")
			e.fail(t, http.MethodGet, ontologyPath+"/objects/Employee?pageSize="+fmt.Sprint(size), nil, 400, "InvalidPageSize")
		})
	}
	e.fail(t, http.MethodGet, ontologyPath+"/objects/Employee?pageSize=ten", nil, 400, "InvalidPageSize")
	e.fail(t, http.MethodPost, search, map[string]any{"pageSize": 2.5}, 400, "InvalidPageSize")
	if objs, _ := e.search(t, "Employee", map[string]any{"pageSize": 20}); len(objs) != 20 {
		t.Fatalf("pageSize 20 gave %d objects", len(objs))
	}
	if objs, _ := e.search(t, "Employee", map[string]any{}); len(objs) != 10 {
		t.Fatalf("default page size gave %d objects, want 10", len(objs))
	}
}
