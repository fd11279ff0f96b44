#!/usr/bin/env bash
# Model-checks the lease protocol (docs/model/lease.pml) with Spin, exhaustively:
#   - the protocol as built must satisfy every property (no assertion violated, search complete);
#   - each deliberately broken variant must be rejected (an assertion violated).
# Exits non-zero if any of that does not hold. Needs spin and gcc (.ci/services.sh installs them).
#
#   bash scripts/check-model.sh            # all variants
#   bash scripts/check-model.sh protocol   # only the named ones
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
model=$root/docs/model/lease.pml

for tool in spin gcc; do
  command -v "$tool" >/dev/null || { echo "check-model: $tool is missing (apt-get install spin gcc)" >&2; exit 2; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# name, expectation, spin -D flags
variants=(
  "protocol pass"
  "validity-from-arrival fail -DBROKEN_ARRIVAL"
  "late-answer-starts fail -DBROKEN_LATE_START"
  "no-watermark fail -DBROKEN_NO_WATERMARK"
  "no-safety-margin fail -DBROKEN_NO_MARGIN"
  "renewal-without-token fail -DBROKEN_NO_TOKEN"
  "store-without-persistence fail -DVOLATILE"
)

wanted=("$@")
failures=0
for v in "${variants[@]}"; do
  read -r name expect flags <<<"$v"
  if [ ${#wanted[@]} -gt 0 ] && [[ ! " ${wanted[*]} " == *" $name "* ]]; then
    continue
  fi
  dir=$work/$name
  mkdir -p "$dir"
  cp "$model" "$dir/lease.pml"
  (
    cd "$dir"
    # shellcheck disable=SC2086
    spin -a $flags lease.pml >spin.out 2>&1 || { cat spin.out; exit 1; }
    gcc -O2 -w -DSAFETY -DCOLLAPSE -o pan pan.c
    start=$(date +%s)
    ./pan -m5000000 >pan.out 2>&1 || true
    echo $(( $(date +%s) - start )) >seconds
  ) || { echo "FAIL $name: the model does not compile"; failures=$((failures + 1)); continue; }
  out=$dir/pan.out
  errors=$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' "$out" | head -1)
  states=$(sed -n 's/^ *\([0-9.e+]*\) states, stored.*/\1/p' "$out" | head -1)
  secs=$(cat "$dir/seconds")
  violated=$(grep -m1 -o 'assertion violated.*' "$out" || true)
  if [ "$expect" = pass ]; then
    if [ "${errors:-x}" = 0 ] && ! grep -q 'max search depth too small' "$out"; then
      echo "ok   $name: every property holds ($states states, ${secs}s, exhaustive)"
    else
      echo "FAIL $name: expected no violation, got errors=${errors:-?} ${violated}"
      tail -30 "$out"
      failures=$((failures + 1))
    fi
  else
    if [ -n "${errors:-}" ] && [ "$errors" != 0 ]; then
      steps=$(sed -n 's/.*depth \([0-9]*\).*/\1/p' "$out" | head -1)
      echo "ok   $name: rejected as expected after ${secs}s: $violated (trail depth ${steps:-?})"
    else
      echo "FAIL $name: expected a violation, the checker found none"
      tail -30 "$out"
      failures=$((failures + 1))
    fi
  fi
done

if [ "$failures" -ne 0 ]; then
  echo "check-model: $failures variant(s) did not behave as expected" >&2
  exit 1
fi
