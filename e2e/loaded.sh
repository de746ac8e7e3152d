#!/usr/bin/env bash
# Runs the whole browser suite N times in a row (default 10) on both stores
# while stress-ng keeps both cores busy, and stops counting at nothing: it
# prints each run's result and the totals. A flaky step shows here first.
#   bash e2e/loaded.sh [N]
set -uo pipefail
cd "$(dirname "$0")/.."
n=${1:-10}
command -v stress-ng >/dev/null || apt-get install -y stress-ng >/dev/null || { echo "stress-ng is needed: apt-get install -y stress-ng" >&2; exit 1; }
bash e2e/setup.sh >/dev/null
stress-ng --cpu 2 --timeout 0 >/dev/null 2>&1 &
stress=$!
trap 'kill $stress 2>/dev/null' EXIT
mkdir -p .test-output
pass=0; fail=0
for i in $(seq 1 "$n"); do
  for store in embedded cosmos; do
    log=.test-output/loaded-$i-$store.log
    if KANRI_E2E_STORE=$store go test -tags e2e -count=1 -v -timeout 10m ./e2e/ >"$log" 2>&1; then
      echo "run $i $store: ok ($(grep -cE -- '--- PASS: TestConsole/[^/]+/' "$log") steps)"; pass=$((pass+1))
    else
      echo "run $i $store: FAIL ($log)"; grep -E -- '--- FAIL|_test.go:[0-9]+:' "$log" | head -20; fail=$((fail+1))
    fi
  done
done
echo "loaded runs: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
