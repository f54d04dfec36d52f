#!/usr/bin/env bash
# End-to-end test of the search API with the official OSDK clients: the
# platform client (@osdk/foundry.ontologies, ontology.test.mjs) and the
# application client (@osdk/client, osdk-*.test.mjs).
#
# On a fresh machine with Go and Node 20+: installs the locked npm packages
# (npm ci), builds the indexer, writes a demo warehouse of real Iceberg
# tables, builds its object types and link tables, starts `indexer serve`
# on a loopback port with bearer tokens, runs the Node tests (node --test),
# stops the server gracefully, and exits non-zero when anything fails.
#
#   bash api/testdata/e2e/run.sh
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
work="$(mktemp -d)"
server_pid=""

cleanup() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

need() { command -v "$1" >/dev/null 2>&1 || { echo "e2e: $1 is required" >&2; exit 1; }; }
need go
need node
need npm
node_major="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$node_major" -lt 20 ]; then
  echo "e2e: Node 20 or later is required (found $(node --version))" >&2
  exit 1
fi

echo "e2e: npm ci"
(cd "$here" && npm ci --no-audit --no-fund --loglevel=error)

echo "e2e: build the indexer and the demo warehouse in $work"
export APP_TOKEN="e2e-app-$RANDOM-$RANDOM-$RANDOM"
export LIMITED_TOKEN="e2e-limited-$RANDOM-$RANDOM-$RANDOM"
(cd "$root" && go build -o "$work/indexer" ./cmd/indexer && go run ./api/testdata/e2e/seed -dir "$work")
# build.yaml is config.yaml without Ghost, which must stay never built:
# building all of it builds every object type and the link table of
# Order.tags, which `indexer build --type` cannot name.
"$work/indexer" build --config "$work/build.yaml" >/dev/null

echo "e2e: start indexer serve"
# --daemon=false serves the index built above as it is: the daemon would
# build Ghost, which the tests expect to be never built (409).
INDEXER_LOG=info "$work/indexer" serve --config "$work/config.yaml" --listen 127.0.0.1:0 --daemon=false 2>"$work/serve.log" &
server_pid=$!
url=""
for _ in $(seq 1 600); do
  url="$(grep -o 'listening on http://[0-9.:]*' "$work/serve.log" | head -n1 | sed 's/listening on //' || true)"
  [ -n "$url" ] && break
  if ! kill -0 "$server_pid" 2>/dev/null; then
    echo "e2e: indexer serve exited:" >&2
    cat "$work/serve.log" >&2
    exit 1
  fi
  sleep 0.1
done
if [ -z "$url" ]; then
  echo "e2e: indexer serve did not start:" >&2
  cat "$work/serve.log" >&2
  exit 1
fi
echo "e2e: server at $url"

status=0
(cd "$here" && ONTOINDEX_URL="$url" DATA_JSON="$work/data.json" node --test ./*.test.mjs) || status=$?

echo "e2e: stop indexer serve"
kill -TERM "$server_pid"
serve_status=0
wait "$server_pid" || serve_status=$?
server_pid=""
if [ "$serve_status" -ne 0 ]; then
  echo "e2e: indexer serve exited with $serve_status after SIGTERM:" >&2
  tail -n 20 "$work/serve.log" >&2
  status=1
fi
if grep -q -e "$APP_TOKEN" -e "$LIMITED_TOKEN" "$work/serve.log"; then
  echo "e2e: the server log holds a token" >&2
  status=1
fi
if [ "$status" -ne 0 ]; then
  echo "e2e: FAILED" >&2
  tail -n 40 "$work/serve.log" >&2
fi
exit "$status"
