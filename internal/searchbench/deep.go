package searchbench

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
)

// The deep paging rows: the same sorted search at page 1 and at page 1000
// (fewer on small tables): ontoindex with the page token of that page,
// PostgreSQL with a keyset condition on (balance, id) and, for
// information, with OFFSET.

const maxDeepPage = 1000

// deepPage is where the deep rows start.
type deepPage struct {
	page         int    // 1-based page number
	token        string // ontoindex page token that yields that page (also the client's deepToken)
	afterBalance float64
	afterID      int64 // PostgreSQL keyset: the last row before the page
}

func (d *deepPage) offset() int { return (d.page - 1) * pageSize }

func (d *deepPage) label(format string) string { return fmt.Sprintf(format, d.page) }

// deepRequest is the deep paging search: active customers by balance.
func deepRequest(token string) searchRequest {
	return searchRequest{Where: eq("active", true), OrderBy: order("balance", "asc"), PageSize: pageSize, PageToken: token}
}

// prepareDeep finds the deep page on ontoindex and, with pg, the keyset of
// the same position in PostgreSQL.
func prepareDeep(ctx context.Context, c *ontoClient, pg *pgSide) (*deepPage, error) {
	first, err := c.search(ctx, deepRequest(""))
	if err != nil {
		return nil, fmt.Errorf("deep paging: first page: %w", err)
	}
	total, err := strconv.Atoi(first.TotalCount)
	if err != nil {
		return nil, fmt.Errorf("deep paging: totalCount %q: %w", first.TotalCount, err)
	}
	d := &deepPage{page: min(maxDeepPage, total/pageSize)}
	if d.page < 2 {
		return nil, fmt.Errorf("deep paging: %d matches are less than two pages", total)
	}
	if d.token, err = tokenAt(ctx, c, d.offset()); err != nil {
		return nil, fmt.Errorf("deep paging: %w", err)
	}
	c.deepToken = d.token
	if pg != nil {
		err := pg.pool.QueryRow(ctx, `SELECT balance, id FROM customers WHERE active ORDER BY balance, id OFFSET $1 LIMIT 1`,
			d.offset()-1).Scan(&d.afterBalance, &d.afterID)
		if err != nil {
			return nil, fmt.Errorf("deep paging: keyset in postgres: %w", err)
		}
	}
	return d, nil
}

// tokenAt returns the page token that continues the deep search after skip
// objects. A token holds the position of the last object of its page, not
// the page size, so pages of up to 10,000 reach the position in a few
// requests; should a server refuse a token made with another page size,
// it pages by 100 as a client would.
func tokenAt(ctx context.Context, c *ontoClient, skip int) (string, error) {
	tok, err := tokenBy(ctx, c, skip, largestDivisor(skip, 10_000))
	var he *httpError
	if errors.As(err, &he) && he.status == http.StatusBadRequest {
		tok, err = tokenBy(ctx, c, skip, pageSize)
	}
	return tok, err
}

func tokenBy(ctx context.Context, c *ontoClient, skip, size int) (string, error) {
	tok := ""
	for done := 0; done < skip; done += size {
		req := deepRequest(tok)
		req.PageSize = size
		p, err := c.search(ctx, req)
		if err != nil {
			return "", fmt.Errorf("page after %d objects (pages of %d): %w", done, size, err)
		}
		if p.NextPageToken == "" || len(p.Keys) != size {
			return "", fmt.Errorf("page after %d objects (pages of %d): %d objects, next page token %q", done, size, len(p.Keys), p.NextPageToken)
		}
		tok = p.NextPageToken
	}
	return tok, nil
}

// largestDivisor returns the largest divisor of n that is at most limit.
func largestDivisor(n, limit int) int {
	for d := min(n, limit); d > 1; d-- {
		if n%d == 0 {
			return d
		}
	}
	return 1
}
