package searchbench

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/ontoindex/ontoindex/internal/benchdata"
	"github.com/ontoindex/ontoindex/internal/icebergwrite"
)

// editor commits the scale run's one-row edits and waits for each to be
// found through the API.
type editor struct {
	tbl     *table.Table
	seed    uint64
	rows    int64
	client  *ontoClient
	timeout time.Duration
}

// editKey is the customer edit i of n edits: n keys spread over the
// table, so that each edit rewrites another data file.
func editKey(rows int64, i, n int) int64 {
	return (rows/int64(n+1))*int64(i+1) + int64(i)
}

// edit commits edit i of n, a copy-on-write overwrite of one customer
// whose name gets a word of its own, and searches for that word through
// the API until the page holds the customer with its new name: a text
// search, which the backend answers (the embedded index answers gets),
// and the name read from the object the server returns, so that the edit
// counts as found once the server serves it, not once the backend holds
// it (a build writes the backend before it commits).
func (e *editor) edit(ctx context.Context, i, n int) (Edit, error) {
	key := editKey(e.rows, i, n)
	word := fmt.Sprintf("scaleedit%d", i)
	c := benchdata.NewCustomer(e.seed, key)
	c.Name = c.Name + " " + word
	start := time.Now()
	tbl, err := icebergwrite.Overwrite(ctx, e.tbl, iceberg.EqualTo(iceberg.Reference("id"), key), icebergwrite.Values(c.Values()))
	returned := time.Now()
	if err != nil {
		return Edit{}, fmt.Errorf("commit edit of customer %d: %w", key, err)
	}
	e.tbl = tbl
	out := Edit{Key: key, CommitMs: ms(returned.Sub(start))}
	req := searchRequest{Where: text("containsAllTerms", "name", word), PageSize: 10, ExcludeRid: true}
	for {
		var page struct {
			Data []struct {
				ID   int64  `json:"id,string"` // a long: the API writes it as a string
				Name string `json:"name"`
			} `json:"data"`
		}
		if err := e.client.do(ctx, http.MethodPost, "/objects/"+objectType+"/search", req, &page); err != nil {
			return Edit{}, fmt.Errorf("search for edit %d: %w", i, err)
		}
		out.Searches++
		if len(page.Data) == 1 && page.Data[0].ID == key && page.Data[0].Name == c.Name {
			out.SearchableMs = ms(time.Since(returned))
			return out, nil
		}
		if len(page.Data) > 1 {
			return Edit{}, fmt.Errorf("search for edit %d finds %d customers, want 1", i, len(page.Data))
		}
		if time.Since(returned) > e.timeout {
			return Edit{}, fmt.Errorf("edit %d of customer %d not found %s after its commit", i, key, e.timeout)
		}
		select {
		case <-time.After(10 * time.Millisecond):
		case <-ctx.Done():
			return Edit{}, ctx.Err()
		}
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
