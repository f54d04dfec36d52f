// Package console is the web console of `indexer serve`: an object
// explorer and the index status, as static assets embedded in the binary
// (plain ES modules, no build step, nothing from a CDN) that call the
// server's public HTTP API only, with the signed-in bearer token.
//
// Handler serves GET / (the page) and GET /console/... (its scripts and
// styles) with a Content-Security-Policy that allows scripts, styles and
// requests from the server's own origin only (its websocket included:
// 'self' matches ws: and wss: on the same host) and no inline script or
// style. The scripts render every value as text (textContent, never
// innerHTML) and keep the token in sessionStorage: never in a URL, a
// cookie or a log.
//
// The pages, all in the URL's fragment so that a query can be shared
// (never the token):
//
//   - #/types: every object type the token sees, with its table, object
//     count, state and lag, and a search across types.
//   - #/explore/{type}: text search, filters per property type (keyword
//     values with counts, numeric and date ranges, booleans, null),
//     sortable columns, cursor paging forward and back, column choice.
//     The page follows the object set it shows (the type, or its where
//     clause) over the server's live feed, the websocket @osdk/client's
//     subscribe() uses (js/live.js, js/pages/explorer-live.js): changed
//     rows update in place and flash, new and removed objects are
//     marked, a refreshObjectSet reloads the page, and an indicator says
//     whether the page is live. A server without the feed leaves the
//     page as it was, marked "Not live".
//   - #/object/{type}/{primaryKey}: every property typed, the primary key,
//     the title, the Iceberg snapshot the object was read at, and the
//     linked objects of each link type.
//   - #/status: per type state, checkpoint and table snapshot, lag, the
//     last build, a chart of recent build durations and lag, invalid rows,
//     merge-on-read refusals with their fix, the write-mode report, and
//     for admin tokens rebuild and reload behind a confirmation. It polls
//     the ops endpoints every two seconds.
package console
