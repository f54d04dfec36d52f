#!/usr/bin/env bash
# Measures the demo figures that docs/operations.md quotes: the first
# full builds of the demo warehouse, incremental builds while its writer
# commits, the RSS of the process, the stop on SIGTERM, and restarts of
# `indexer serve` on the demo's data dir with and without its index files
# (time until /readyz answers 200, RSS, index file sizes).
#
#   bash tools/demo-figures.sh            # serves on 127.0.0.1:8080, as the demo does
#   PORT=18113 bash tools/demo-figures.sh
#
# It builds bin/indexer, works in a temporary directory that it removes, and
# takes about a minute. Absolute figures depend on the machine and on what
# else runs on it: the script prints both.
set -euo pipefail
cd "$(dirname "$0")/.."

port=${PORT:-8080}
writer_seconds=${WRITER_SECONDS:-30}
restarts=${RESTARTS:-3}
work=$(mktemp -d /tmp/ontoindex-figures-XXXXXX)
pid=""
cleanup() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then kill -TERM "$pid"; wait "$pid" || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

now() { date +%s.%N; }
since() { echo "$(now) - $1" | bc | awk '{printf "%.2f", $1}'; }
rss() { awk '/^VmRSS/{r=$2} /^VmHWM/{h=$2} END{printf "RSS %.0f MiB (peak %.0f MiB)", r/1024, h/1024}' "/proc/$1/status"; }
wait_ready() { # wait_ready PID: until /readyz answers 200, at most 600 s
  local deadline=$(( $(date +%s) + 600 ))
  until [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/readyz" || true)" = 200 ]; do
    kill -0 "$1" 2>/dev/null || { echo "indexer exited before it was ready" >&2; exit 1; }
    [ "$(date +%s)" -lt "$deadline" ] || { echo "not ready after 600 s" >&2; exit 1; }
    sleep 0.02
  done
}
stop() { # stop PID: SIGTERM, then the time to exit and the exit status
  local t code=0
  t=$(now)
  kill -TERM "$1"
  wait "$1" || code=$?
  echo "stopped by SIGTERM in $(since "$t") s, exit status $code"
}

go build -o bin/indexer ./cmd/indexer
echo "date:    $(date -u +%Y-%m-%d)"
echo "machine: $(nproc) cores, $(awk '/MemTotal/{printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -sr), $(go version | cut -d' ' -f3), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
echo "load:    $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min) at the start"
echo

echo "== bin/indexer demo --dir DIR --listen 127.0.0.1:$port (first run: generates the warehouse)"
t=$(now)
bin/indexer demo --dir "$work/demo" --listen "127.0.0.1:$port" >"$work/demo.out" 2>&1 &
pid=$!
wait_ready "$pid"
echo "ready (every type built) $(since "$t") s after the start; $(rss "$pid")"
grep -E 'rows in|warehouse generated|full build' "$work/demo.out" | sed 's/^/  /'
sleep "$writer_seconds"
echo "after $writer_seconds s of demo writer: $(rss "$pid")"
grep -E 'incremental build' "$work/demo.out" | head -3 | sed 's/^/  /'
echo "  status of Customer:"
curl -s "http://127.0.0.1:$port/api/indexer/v1/status/Customer" | sed 's/^/  /'
echo
stop "$pid"
pid=""
echo

snaps() { find "$work/demo/index" -name index.snap -printf '%P %s\n' | sort | awk '{printf "  %s: %.1f MiB\n", $1, $2/1048576}'; }
echo "index files:"
snaps
serve_once() {
  local t
  t=$(now)
  bin/indexer serve --config "$work/demo/ontology.yaml" --listen "127.0.0.1:$port" >>"$work/serve.out" 2>&1 &
  pid=$!
  wait_ready "$pid"
  local ready
  ready=$(since "$t")
  sleep 2
  printf '  ready in %s s; %s; ' "$ready" "$(rss "$pid")"
  stop "$pid"
  pid=""
}
echo
echo "== bin/indexer serve --config DIR/ontology.yaml, a restart that loads the index files ($restarts times)"
for _ in $(seq "$restarts"); do serve_once; done
echo
echo "== the same after removing DIR/index/types/*/gen-*/index.snap: the index is rebuilt from state.db ($restarts times)"
for _ in $(seq "$restarts"); do
  find "$work/demo/index" -name index.snap -delete
  serve_once
done
echo
echo "load:    $(cut -d' ' -f1-3 /proc/loadavg) at the end"
