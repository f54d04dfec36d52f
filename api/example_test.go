package api_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/ontoindex/ontoindex/api"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/internal/testkit/apidemo"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
)

// exampleServer builds the demo object types in a temporary directory and
// serves them anonymously (no tokens: loopback only).
func exampleServer() (base string, stop func(), err error) {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "ontoindex-example")
	if err != nil {
		return "", nil, err
	}
	w, err := icebergtest.NewWarehouse(filepath.Join(dir, "warehouse"))
	if err != nil {
		return "", nil, err
	}
	if err := apidemo.Create(ctx, w); err != nil {
		return "", nil, err
	}
	cfg := config.Default()
	cfg.Ontology.APIName = "demo"
	cfg.DataDir = filepath.Join(dir, "data")
	cfg.Catalogs = map[string]config.Catalog{"warehouse": {Type: "hadoop", Properties: map[string]string{"warehouse": w.Dir}}}
	cfg.ObjectTypes = apidemo.Specs("warehouse")
	if err := cfg.Validate(); err != nil {
		return "", nil, err
	}
	ix, err := indexer.Open(ctx, cfg, indexer.Options{})
	if err != nil {
		return "", nil, err
	}
	for _, name := range apidemo.BuiltTypes() {
		if _, err := ix.Build(ctx, name, indexer.BuildOptions{}); err != nil {
			return "", nil, err
		}
	}
	s, err := api.New(ix, api.Options{})
	if err != nil {
		return "", nil, err
	}
	srv := httptest.NewServer(s.Handler())
	return srv.URL + "/api/v2/ontologies/demo", func() { srv.Close(); _ = ix.Close(); _ = os.RemoveAll(dir) }, nil
}

// Search employees whose bio has the words "north atlantic" or who work in
// Research, highest salary first, two per page.
func Example_search() {
	base, stop, err := exampleServer()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stop()
	body := `{
	  "where": {"type": "or", "value": [
	    {"type": "containsAllTermsInOrder", "field": "bio", "value": "north atlantic"},
	    {"type": "eq", "field": "dept", "value": "Research"}]},
	  "orderBy": {"fields": [{"field": "salary", "direction": "desc"}]},
	  "select": ["name", "salary"], "excludeRid": true, "pageSize": 2}`
	resp, err := http.Post(base+"/objects/Employee/search", "application/json", strings.NewReader(body))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	// The page token is opaque; show its presence only.
	s := string(out)
	if i := strings.Index(s, `"nextPageToken":"`); i >= 0 {
		j := strings.Index(s[i+17:], `"`)
		s = s[:i+17] + "…" + s[i+17+j:]
	}
	fmt.Println(resp.Status)
	fmt.Print(s)
	// Output:
	// 200 OK
	// {"data":[{"__apiName":"Employee","__primaryKey":"470","__title":"Linus Liskov","id":"470","name":"Linus Liskov","salary":"97998.47"},{"__apiName":"Employee","__primaryKey":"430","__title":"Ken Turing","id":"430","name":"Ken Turing","salary":"93062.43"}],"nextPageToken":"…","totalCount":"16"}
}

// Get an object with a composite primary key: the components joined by
// ",", with "," and "%" inside a component escaped as %2C and %25, then
// percent-encoded as a path segment.
func Example_compositeKey() {
	base, stop, err := exampleServer()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stop()
	key := "10," + strings.NewReplacer("%", "%25", ",", "%2C").Replace("R&D, phase 1")
	resp, err := http.Get(base + "/objects/Assignment/" + url.PathEscape(key) + "?excludeRid=true")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	fmt.Println(key)
	fmt.Print(string(out))
	// Output:
	// 10,R&D%2C phase 1
	// {"__apiName":"Assignment","__primaryKey":"10,R&D%2C phase 1","__title":"R&D, phase 1","emp_id":"10","hours":2,"project":"R&D, phase 1"}
}
