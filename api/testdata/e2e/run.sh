#!/usr/bin/env bash
# End-to-end test of the search API with the official OSDK clients: the
# platform client (@osdk/foundry.ontologies, ontology.test.mjs) and the
# application client (@osdk/client, osdk-*.test.mjs), and of live object
# set subscriptions with the application client's .subscribe()
# (osdk-subscribe.test.mjs).
#
# On a fresh machine with Go and Node 20+: installs the locked
# npm packages (npm ci), builds the indexer, writes a demo warehouse of
# real Iceberg tables, builds its object types and link tables, starts
# `indexer serve` on a loopback port with bearer tokens, and serves it as
# built (--daemon=false). For the subscriptions it writes two more
# warehouses and serves each with the daemon polling every table at a
# short interval, one over cleartext and one over TLS with a certificate
# of a CA the seed made (Node trusts it through NODE_EXTRA_CA_CERTS); the
# test commits to their tables with the writer (commit/). It runs the
# Node tests (node --test), stops the servers gracefully, and exits
# non-zero when anything fails. The config declares interfaces (the seed's
# apidemo.InterfaceSpecs); `indexer osdk-types` writes the typed
# definitions of the served config, which tsc compiles to $OSDK_TYPES
# (osdk-generated.test.mjs imports them).
#
# With E2E_OPENSEARCH=1 (after .ci/install-opensearch) it first starts a
# one-node OpenSearch cluster of the test kit (./opensearch), and every
# object type of every server names it as its backend: the same tests
# against the backend's searches and aggregations. E2E_OPENSEARCH_EMBEDDED_INDEX
# sets the backend's embeddedIndex (default full; none: the servers keep
# no in-memory index, and the reads only it answers fail).
#
#   bash api/testdata/e2e/run.sh
#   E2E_OPENSEARCH=1 bash api/testdata/e2e/run.sh
#   E2E_OPENSEARCH=1 E2E_OPENSEARCH_EMBEDDED_INDEX=none bash api/testdata/e2e/run.sh
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
work="$(mktemp -d)"
# The servers started, by pid, and their names (the name of their log).
server_pids=()
server_names=()
# The OpenSearch node's command (E2E_OPENSEARCH=1), stopped after the
# servers.
opensearch_pid=""

cleanup() {
  for pid in "${server_pids[@]}" $opensearch_pid; do
    if kill -0 "$pid" 2>/dev/null; then
      kill "$pid" 2>/dev/null || true
      wait "$pid" 2>/dev/null || true
    fi
  done
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
export ADMIN_TOKEN="e2e-admin-$RANDOM-$RANDOM-$RANDOM"
(cd "$root" && go build -o "$work/indexer" ./cmd/indexer && go build -o "$work/commit" ./api/testdata/e2e/commit &&
  go build -o "$work/seed" ./api/testdata/e2e/seed)
seed_flags=()
if [ "${E2E_OPENSEARCH:-}" = 1 ]; then
  echo "e2e: start a one-node OpenSearch cluster; every object type names it as its backend"
  (cd "$root" && go build -o "$work/opensearch" ./api/testdata/e2e/opensearch)
  "$work/opensearch" >"$work/opensearch.url" 2>"$work/opensearch.log" &
  opensearch_pid=$!
  for _ in $(seq 1 600); do
    [ -s "$work/opensearch.url" ] && break
    if ! kill -0 "$opensearch_pid" 2>/dev/null; then
      echo "e2e: the OpenSearch node did not start:" >&2
      tail -n 40 "$work/opensearch.log" >&2
      exit 1
    fi
    sleep 0.5
  done
  opensearch_url="$(head -n 1 "$work/opensearch.url")"
  [ -n "$opensearch_url" ] || { echo "e2e: the OpenSearch node did not start in 5 minutes" >&2; exit 1; }
  echo "e2e: OpenSearch at $opensearch_url"
  seed_flags=(-opensearch "$opensearch_url" -embedded-index "${E2E_OPENSEARCH_EMBEDDED_INDEX:-full}")
fi
"$work/seed" -dir "$work" "${seed_flags[@]}"
# build.yaml is config.yaml without Ghost, which must stay never built:
# building all of it builds every object type and the link table of
# Order.tags, which `indexer build --type` cannot name.
"$work/indexer" build --config "$work/build.yaml" >/dev/null

# The typed definitions of the served config, as `osdk generate` would
# write them, compiled by tsc in strict mode (which type-checks them) to
# the JavaScript and declarations the Node tests import: $OSDK_TYPES is
# their index.js. Written before serve starts: the command opens the
# data dir.
echo "e2e: generate the OSDK definitions (indexer osdk-types) and compile them with tsc"
types_dir="$work/osdk-types"
"$work/indexer" osdk-types --config "$work/config.yaml" --out "$types_dir/src" >/dev/null
ln -s "$here/node_modules" "$types_dir/node_modules"
printf '{"type": "module"}\n' >"$types_dir/package.json"
cat >"$types_dir/tsconfig.json" <<'JSON'
{
  "compilerOptions": {
    "strict": true, "noUnusedLocals": true, "skipLibCheck": true, "declaration": true,
    "target": "ES2022", "module": "NodeNext", "moduleResolution": "NodeNext", "types": [],
    "rootDir": "src", "outDir": "build"
  },
  "include": ["src/**/*.ts"]
}
JSON
(cd "$types_dir" && ./node_modules/.bin/tsc -p tsconfig.json)

# start_server NAME CONFIG [FLAG...] starts `indexer serve` with its log in
# $work/NAME.log and sets url to the address it listens on.
start_server() {
  local name="$1" config="$2"
  shift 2
  INDEXER_LOG=info "$work/indexer" serve --config "$config" --listen 127.0.0.1:0 "$@" 2>"$work/$name.log" &
  local pid=$!
  server_pids+=("$pid")
  server_names+=("$name")
  url=""
  for _ in $(seq 1 600); do
    url="$(grep -o 'listening on https\?://[0-9.:]*' "$work/$name.log" | head -n1 | sed 's/listening on //' || true)"
    [ -n "$url" ] && break
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "e2e: indexer serve ($name) exited:" >&2
      cat "$work/$name.log" >&2
      exit 1
    fi
    sleep 0.1
  done
  if [ -z "$url" ]; then
    echo "e2e: indexer serve ($name) did not start:" >&2
    cat "$work/$name.log" >&2
    exit 1
  fi
  echo "e2e: $name server at $url"
}

echo "e2e: start indexer serve"
# --daemon=false serves the index built above as it is: the daemon would
# build Ghost, which the tests expect to be never built (409).
start_server serve "$work/config.yaml" --daemon=false
serve_url="$url"

echo "e2e: the warehouses of the subscription test, one with a CA and a server certificate"
# Each live server has a warehouse of its own: the test commits to it.
"$work/seed" -dir "$work/live" "${seed_flags[@]}"
"$work/seed" -dir "$work/live-tls" -tls "${seed_flags[@]}"

echo "e2e: start indexer serve with the daemon, over cleartext and over TLS"
start_server live "$work/live/subscribe.yaml"
live_url="$url"
start_server live-tls "$work/live-tls/subscribe.yaml"
live_tls_url="$url"
case "$live_tls_url" in
  https://*) ;;
  *) echo "e2e: the server with server.tls listens on $live_tls_url, not https" >&2; exit 1 ;;
esac

status=0
(cd "$here" && ONTOINDEX_URL="$serve_url" DATA_JSON="$work/data.json" OSDK_TYPES="$types_dir/build/index.js" \
  SUBSCRIBE_URL="$live_url" SUBSCRIBE_WAREHOUSE="$work/live/warehouse" \
  SUBSCRIBE_TLS_URL="$live_tls_url" SUBSCRIBE_TLS_WAREHOUSE="$work/live-tls/warehouse" \
  COMMIT="$work/commit" NODE_EXTRA_CA_CERTS="$work/live-tls/tls/ca.pem" \
  node --test ./*.test.mjs) || status=$?

echo "e2e: stop indexer serve"
for i in "${!server_pids[@]}"; do
  pid="${server_pids[$i]}"
  name="${server_names[$i]}"
  kill -TERM "$pid"
  serve_status=0
  wait "$pid" || serve_status=$?
  if [ "$serve_status" -ne 0 ]; then
    echo "e2e: indexer serve ($name) exited with $serve_status after SIGTERM:" >&2
    tail -n 20 "$work/$name.log" >&2
    status=1
  fi
  if grep -q -e "$APP_TOKEN" -e "$LIMITED_TOKEN" -e "$ADMIN_TOKEN" "$work/$name.log"; then
    echo "e2e: the log of indexer serve ($name) holds a token" >&2
    status=1
  fi
done
server_pids=()
if [ "$status" -ne 0 ]; then
  echo "e2e: FAILED" >&2
  for name in "${server_names[@]}"; do
    echo "e2e: the end of the log of indexer serve ($name):" >&2
    tail -n 40 "$work/$name.log" >&2
  done
fi
exit "$status"
