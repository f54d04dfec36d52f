package api

import (
	"context"
	"crypto/rand"
	"errors"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ontoindex/ontoindex/api/serverconfig"
	"github.com/ontoindex/ontoindex/api/wire"
	"github.com/ontoindex/ontoindex/indexer"
)

// Listings with snapshot: true (loadObjects, loadObjectsMultipleObjectTypes,
// loadObjectsOrInterfaces, search; @osdk/client's asyncIter asks for it)
// read every page from the snapshots of their first page. The first page
// holds the snapshot of each view it opened (indexer.HeldSnapshot) under a
// random id that its next page token carries after a '.', which base64 page
// tokens never contain: "<token>.<id>". Each later page opens its views
// from the held snapshots, so objects are neither skipped nor repeated nor
// changed across builds. A listing's snapshots are released when its last
// page is served, server.snapshotListings.retention after its latest page,
// or when more listings than maxListings are held (the least recently used
// goes first); a page token of a released listing is refused with
// ListingSnapshotExpired, never answered from another snapshot.

// snapshotListings holds the snapshots of a Server's listings.
type snapshotListings struct {
	cfg serverconfig.SnapshotListings
	now func() time.Time // time.Now; tests replace it

	mu   sync.Mutex
	byID map[string]*heldListing
}

// heldListing is the snapshots of one listing.
type heldListing struct {
	id    string
	snaps map[string]*indexer.HeldSnapshot // by view name; read-only once held
	// Under snapshotListings.mu:
	inUse    int // pages being served
	lastUsed time.Time
	done     bool // its last page was served: released once not in use
}

// listing is a request's part in a listing with snapshot: true; held is
// nil on its first page.
type listing struct {
	held *heldListing
}

func newSnapshotListings(cfg serverconfig.SnapshotListings) *snapshotListings {
	return &snapshotListings{cfg: cfg, now: time.Now, byID: map[string]*heldListing{}}
}

// begin starts a page: the listing it belongs to (nil without snapshot:
// true) and the page token without the listing's id. A token that names a
// listing resumes it whatever the snapshot flag says.
func (sl *snapshotListings) begin(snapshot bool, token string) (*listing, string, error) {
	inner, id, held := strings.Cut(token, ".")
	if held && (inner == "" || !isListingID(id)) {
		// No listing's token: the token decoder refuses it as no page token.
		inner, held = token, false
	}
	if !held {
		if snapshot {
			return &listing{}, token, nil
		}
		return nil, token, nil
	}
	sl.mu.Lock()
	drop := sl.sweep(sl.now())
	h, ok := sl.byID[id]
	resumed := ok && !h.done
	if resumed {
		h.inUse++
	}
	sl.mu.Unlock()
	release(drop)
	if !resumed {
		return nil, "", sl.expired("")
	}
	return &listing{held: h}, inner, nil
}

// isListingID reports whether id has the shape of the ids hold gives
// (rand.Text: 26 letters of the base32 alphabet).
func isListingID(id string) bool {
	if len(id) != 26 {
		return false
	}
	for _, c := range []byte(id) {
		if (c < 'A' || c > 'Z') && (c < '2' || c > '7') {
			return false
		}
	}
	return true
}

// view opens the view of a type (or link table) from the listing's held
// snapshot; ok is false when the listing holds none for it.
func (sl *snapshotListings) view(l *listing, name string) (*indexer.View, bool, error) {
	if l == nil || l.held == nil {
		return nil, false, nil
	}
	hs, ok := l.held.snaps[name]
	if !ok {
		return nil, false, nil
	}
	v, err := hs.View()
	if errors.Is(err, indexer.ErrStoreMoved) {
		return nil, true, sl.expired(name + " keeps some values only in its store, which a build has changed since the listing's first page")
	}
	return v, true, err
}

// end finishes a page: the next page token to return, which names the
// listing when it holds snapshots for the next page. views are those the
// page read; the first page of a listing holds their snapshots.
func (sl *snapshotListings) end(l *listing, views map[string]*indexer.View, next string, failed bool) string {
	if l == nil {
		return next
	}
	if l.held == nil {
		if failed || next == "" {
			return next
		}
		return sl.hold(views, next)
	}
	sl.mu.Lock()
	h := l.held
	h.inUse--
	h.lastUsed = sl.now()
	if !failed && next == "" {
		h.done = true
	}
	done := h.done
	var drop []*heldListing
	if done && h.inUse == 0 {
		delete(sl.byID, h.id)
		drop = append(drop, h)
	}
	sl.mu.Unlock()
	release(drop)
	if done || next == "" {
		return next
	}
	return next + "." + h.id
}

// finish ends a page, deferred so that it runs before the views are
// released: next is the page's next token, which it rewrites, or nil when
// the page failed.
func (sl *snapshotListings) finish(l *listing, views map[string]*indexer.View, next *string) {
	if next == nil {
		sl.end(l, nil, "", true)
		return
	}
	*next = sl.end(l, views, *next, false)
}

// hold keeps the snapshots of a first page's views as a new listing.
func (sl *snapshotListings) hold(views map[string]*indexer.View, next string) string {
	h := &heldListing{id: rand.Text(), snaps: make(map[string]*indexer.HeldSnapshot, len(views))}
	for name, v := range views {
		hs := v.Hold()
		if hs == nil { // the generation is closing: the listing cannot be held
			release([]*heldListing{h})
			return next
		}
		h.snaps[name] = hs
	}
	sl.mu.Lock()
	now := sl.now()
	h.lastUsed = now
	sl.byID[h.id] = h
	drop := sl.sweep(now)
	kept := true
	for len(sl.byID) > sl.cfg.MaxListings {
		lru := sl.leastRecentlyUsed()
		if lru == nil {
			break // all in use
		}
		delete(sl.byID, lru.id)
		drop = append(drop, lru)
		kept = kept && lru != h // every other listing is in use
	}
	sl.mu.Unlock()
	release(drop)
	if !kept {
		return next
	}
	return next + "." + h.id
}

// sweep removes the listings idle for longer than the retention, and
// returns them for release outside the lock. Called with mu held.
func (sl *snapshotListings) sweep(now time.Time) []*heldListing {
	var drop []*heldListing
	for id, h := range sl.byID {
		if h.inUse == 0 && now.Sub(h.lastUsed) > sl.cfg.Retention {
			delete(sl.byID, id)
			drop = append(drop, h)
		}
	}
	return drop
}

// leastRecentlyUsed is the idle listing used longest ago. Called with mu
// held; the map holds at most maxListings+1 listings.
func (sl *snapshotListings) leastRecentlyUsed() *heldListing {
	var lru *heldListing
	for _, h := range sl.byID {
		if h.inUse == 0 && (lru == nil || h.lastUsed.Before(lru.lastUsed)) {
			lru = h
		}
	}
	return lru
}

// release gives back the snapshots of listings no longer held.
func release(hs []*heldListing) {
	for _, h := range hs {
		for _, s := range h.snaps {
			s.Release()
		}
	}
}

// held is the number of listings held, for tests and metrics.
func (sl *snapshotListings) held() int {
	sl.mu.Lock()
	defer sl.mu.Unlock()
	return len(sl.byID)
}

// run sweeps idle listings until ctx is done, then releases every
// listing: it lives as long as Serve.
func (sl *snapshotListings) run(ctx context.Context) {
	every := min(max(sl.cfg.Retention/4, time.Second), time.Minute)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			sl.mu.Lock()
			drop := make([]*heldListing, 0, len(sl.byID))
			for id, h := range sl.byID {
				delete(sl.byID, id)
				drop = append(drop, h)
			}
			sl.mu.Unlock()
			release(drop)
			return
		case <-t.C:
			sl.mu.Lock()
			drop := sl.sweep(sl.now())
			sl.mu.Unlock()
			release(drop)
		}
	}
}

// expired is the error of a page token whose listing is no longer held.
func (sl *snapshotListings) expired(why string) *wire.Error {
	if why == "" {
		why = "its snapshot is no longer held: pages of a snapshot listing must follow within " + sl.cfg.Retention.String() + " of each other, and at most " + strconv.Itoa(sl.cfg.MaxListings) + " listings are held at once"
	}
	return wire.Err(wire.NameListingSnapshotExpired, map[string]any{"retention": sl.cfg.Retention.String(),
		"reason": "the listing cannot go on: " + why + "; start it again from its first page"})
}

// nextOf is the next token of a page for finish: nil when there is no
// page (the request failed).
func (p *objectPage) nextOf() *string {
	if p == nil {
		return nil
	}
	return &p.next
}

// nextOf is the next token of a page for finish, as objectPage's.
func (p *multiPage) nextOf() *string {
	if p == nil {
		return nil
	}
	return &p.next
}
