#!/usr/bin/env bash
# Runs every fuzz target of the module (each `func FuzzX(f *testing.F)` in a
# _test.go file) for FUZZ_TIME each, one after the other, and prints a table
# of the executions each one ran.
#
#   bash tools/fuzz.sh                    # the soak run: ten million executions per target
#   FUZZ_TIME=5s bash tools/fuzz.sh       # CI: a few seconds each
#   FUZZ_TIME=1000000x bash tools/fuzz.sh FuzzRead FuzzParse   # some targets only
#
# FUZZ_TIME is go test's -fuzztime: a duration, or Nx for N executions
# (default 10000000x). FUZZ_REPORT=FILE also writes the table as TSV
# (target, package, executions, seconds). A failing input is written by go
# test to the package's testdata/fuzz/FuzzX/ (commit it with the fix: it
# then runs in every `go test`); the script stops at the first failure with
# go test's output. The corpus each run grows stays in go's cache
# ($(go env GOCACHE)/fuzz), so a later run goes on from it.
set -euo pipefail
cd "$(dirname "$0")/.."

fuzztime=${FUZZ_TIME:-10000000x}
report=${FUZZ_REPORT:-}

# The targets: package dir and name of every fuzz function.
mapfile -t targets < <(grep -rEo --include='*_test.go' '^func Fuzz[A-Za-z0-9_]+\(f \*testing\.F\)' . |
  sed -E 's|^\./(.*)/[^/]*_test\.go:func (Fuzz[A-Za-z0-9_]+).*|\1 \2|' | sort -k2)
if [ "$#" -gt 0 ]; then
  mapfile -t targets < <(for t in "${targets[@]}"; do for want in "$@"; do [ "${t#* }" = "$want" ] && echo "$t"; done; done)
  if [ "${#targets[@]}" -ne "$#" ]; then
    echo "fuzz.sh: unknown target among: $*" >&2
    exit 2
  fi
fi

[ -n "$report" ] && printf 'target\tpackage\texecutions\tseconds\n' >"$report"
rows=()
total=0
for t in "${targets[@]}"; do
  dir=${t% *} name=${t#* }
  echo "== $name (./$dir, -fuzztime $fuzztime)"
  start=$(date +%s)
  log=$(mktemp)
  # -timeout 0: go test's default of 10 minutes would end a long run.
  if ! go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" -timeout 0 "./$dir" >"$log" 2>&1; then
    cat "$log"
    rm -f "$log"
    echo "fuzz.sh: $name failed (the input is in ./$dir/testdata/fuzz/$name/)" >&2
    exit 1
  fi
  secs=$(($(date +%s) - start))
  # The last progress line holds the executions of the whole run; a run
  # that spent its time on the baseline (every input of the corpus, run
  # first) has none.
  execs=$(grep -Eo 'execs: [0-9]+' "$log" | tail -1 | grep -Eo '[0-9]+' || echo 0)
  note=""
  if [ "$execs" = 0 ]; then
    note="  (the corpus only: $(grep -Eo 'baseline coverage: [0-9]+/[0-9]+' "$log" | tail -1 | cut -d' ' -f3) inputs)"
  fi
  tail -1 "$log"
  rm -f "$log"
  rows+=("$(printf '%-22s %-16s %12s %6ss%s' "$name" "./$dir" "$execs" "$secs" "$note")")
  total=$((total + execs))
  [ -n "$report" ] && printf '%s\t./%s\t%s\t%s\n' "$name" "$dir" "$execs" "$secs" >>"$report"
done
echo "== fuzz executions"
printf '%-22s %-16s %12s %7s\n' target package executions time
printf '%s\n' "${rows[@]}"
printf '%-22s %-16s %12s\n' total "" "$total"
