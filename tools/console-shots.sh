#!/usr/bin/env bash
# Takes the screenshots of docs/console.md from the demo itself: the
# explorer on Customer (a search sorted by lifetimeValue) and the status
# page while the demo's writer has Aircraft blocked by a merge-on-read
# delete (it compacts the table a few seconds later, so the shot is taken
# as soon as the demo logs the block).
#
#   bash tools/console-shots.sh            # writes docs/console-explorer.png and docs/console-status.png
#   PORT=18114 bash tools/console-shots.sh
#
# It builds bin/indexer, runs the demo in a temporary directory that it
# removes, needs chromium on $PATH, and takes two to three minutes.
set -euo pipefail
cd "$(dirname "$0")/.."

port=${PORT:-18114}
work=$(mktemp -d /tmp/ontoindex-shots-XXXXXX)
pid=""
cleanup() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then kill -TERM "$pid"; wait "$pid" || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

go build -o bin/ ./cmd/indexer
root=$(pwd)
(cd "$work" && exec "$root/bin/indexer" demo --listen "127.0.0.1:$port" >demo.log 2>&1) &
pid=$!

# waitlog waits (up to $2 seconds) for the demo's log to gain a line
# matching $1 beyond the first $3 such lines.
waitlog() {
  local deadline=$((SECONDS + $2))
  while [ "$(grep -c -- "$1" "$work/demo.log" || true)" -le "$3" ]; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "console-shots: no \"$1\" in the demo's log after $2 s:" >&2
      tail -20 "$work/demo.log" >&2
      exit 1
    fi
    sleep 0.2
  done
}

shoot() { # shoot FILE HEIGHT FRAGMENT
  chromium --headless=new --no-sandbox --disable-gpu --hide-scrollbars --window-size="1400,$2" \
    --virtual-time-budget=3000 --screenshot="$root/docs/$1" "http://127.0.0.1:$port/$3" 2>/dev/null
}

waitlog "ready: every object type" 300 0
shoot console-explorer.png 900 "#/explore/Customer?q=greta&sort=lifetimeValue:desc"
waitlog " blocked " 300 "$(grep -c -- " blocked " "$work/demo.log" || true)"
shoot console-status.png 1000 "#/status"
echo "console-shots: wrote docs/console-explorer.png and docs/console-status.png"
