package api

import (
	"strconv"

	"github.com/ontoindex/ontoindex/api/wire"
	"github.com/ontoindex/ontoindex/indexer"
)

// The page of loadLinks (objectset_load_links.go): where it starts, as its
// token carries it, and its JSON.

// linksCursor is where a page starts: at the source with key source (or
// the first after it) in the batch of sources read after the engine
// cursor batch, at its link link, after the target cursor target.
type linksCursor struct {
	batch, source []byte
	link          int
	target        []byte
}

func (c linksCursor) token(fp [8]byte) string {
	return wire.Token{Kind: wire.TokLinks, FP: fp, Values: []string{string(c.batch), string(c.source), strconv.Itoa(c.link), string(c.target)}}.Encode()
}

func parseLinksCursor(tok string, fp [8]byte, links int) (linksCursor, error) {
	t, err := wire.DecodeToken(tok, wire.TokLinks, fp)
	if err != nil {
		return linksCursor{}, err
	}
	if len(t.Values) != 4 {
		return linksCursor{}, wire.InvalidToken(tok)
	}
	link, err := strconv.Atoi(t.Values[2])
	if err != nil || link < 0 || link >= links {
		return linksCursor{}, wire.InvalidToken(tok)
	}
	c := linksCursor{link: link}
	for i, dst := range []*[]byte{&c.batch, &c.source, nil, &c.target} {
		if dst != nil && t.Values[i] != "" {
			*dst = []byte(t.Values[i])
		}
	}
	return c, nil
}

// linksWriter writes the data of a page: a LinksFromObject is opened at
// its source's first link, so a source without links on the page has
// none.
type linksWriter struct {
	b    []byte
	size int // links a page holds
	n    int // links written
	// The source whose links are written next, and whether its entry is
	// open.
	src     *renderer
	srcPage *indexer.Page
	srcRow  int
	open    bool
	entries int
}

func (w *linksWriter) full() bool { return w.n >= w.size }
func (w *linksWriter) room() int  { return w.size - w.n }

// source makes object j of page the source of the next links.
func (w *linksWriter) source(r *renderer, page *indexer.Page, j int) {
	w.src, w.srcPage, w.srcRow = r, page, j
}

// link writes one linked object: object k of page, through link.
func (w *linksWriter) link(link string, r *renderer, page *indexer.Page, k int) {
	if !w.open {
		if w.entries > 0 {
			w.b = append(w.b, ',')
		}
		w.b = w.src.appendPageRow(append(w.b, `{"sourceObject":`...), w.srcPage, w.srcRow)
		w.b = append(w.b, `,"linkedObjects":[`...)
		w.open = true
		w.entries++
	} else {
		w.b = append(w.b, ',')
	}
	w.b = appendString(append(w.b, `{"linkType":`...), link)
	w.b = append(r.appendPageRow(append(w.b, `,"targetObject":`...), page, k), '}')
	w.n++
}

// endSource closes the entry of the current source, if it has one.
func (w *linksWriter) endSource() {
	if w.open {
		w.b = append(w.b, "]}"...)
		w.open = false
	}
}

// close ends the data array.
func (w *linksWriter) close() {
	w.endSource()
	w.b = append(w.b, ']')
}

// rawJSON is a response already rendered.
type rawJSON []byte

func (j rawJSON) appendJSON(b []byte) []byte { return append(b, j...) }
