#!/usr/bin/env bash
# Idle CPU of two builds side by side (benchmarks/JOURNAL.md, "Fourth round"): this checkout's
# launcher and the one of BEFORE (another checkout, packaged the same way) start at once, each on
# its own H2 file with the same 1,000 jobs none of which is due; after WARM seconds, the CPU ticks
# (utime + stime from /proc/PID/stat) each uses over WINDOW seconds, as % of one core.
#
#   BEFORE=/path/to/other/checkout scripts/measure-idle-pair.sh      # WARM=20 WINDOW=120 PAIRS=2
#
# Run after `mvn -B -ntp -q package -DskipTests` in both checkouts. Everything goes to a fresh
# temporary directory (removed at the end); both daemons are stopped by their pids.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
WARM=${WARM:-20}
WINDOW=${WINDOW:-120}
PAIRS=${PAIRS:-2}
BEFORE=${BEFORE:?BEFORE=/path/to/other/checkout}
[ -x "$BEFORE/bin/leasehold" ] && [ -f "$BEFORE/app/target/leasehold.jar" ] \
  || { echo "BEFORE=$BEFORE: no packaged build there" >&2; exit 2; }
[ -f "$root/app/target/leasehold.jar" ] || { echo "no app/target/leasehold.jar here" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/leasehold-idle.XXXXXX")
pids=()
cleanup() {
  for pid in "${pids[@]:-}"; do
    [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null || true
  done
  rm -rf "$work"
}
trap cleanup EXIT
hz=$(getconf CLK_TCK)

config() {
  {
    echo "node: idle-$1"
    echo "store: {type: h2, url: \"jdbc:h2:file:$work/$1-$2/store\"}"
    echo "jobs:"
    for i in $(seq 1 1000); do
      echo "  - {name: job-$i, cron: \"$((i % 60)) 0 1 1 *\", command: [\"true\"]}"
    done
  } > "$work/$1-$2.yaml"
  echo "$work/$1-$2.yaml"
}
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
percent() { awk -v t="$1" -v hz="$hz" -v w="$WINDOW" 'BEGIN { printf "%.2f", 100 * t / hz / w }'; }

echo "| pair | before (% of a core) | this build | ratio |"
echo "|---|--:|--:|--:|"
for pair in $(seq 1 "$PAIRS"); do
  "$BEFORE/bin/leasehold" run --config "$(config before "$pair")" > "$work/before-$pair.log" 2>&1 &
  before=$!
  "$root/bin/leasehold" run --config "$(config after "$pair")" > "$work/after-$pair.log" 2>&1 &
  after=$!
  pids=("$before" "$after")
  sleep "$WARM"
  b0=$(ticks "$before")
  a0=$(ticks "$after")
  sleep "$WINDOW"
  b1=$(ticks "$before")
  a1=$(ticks "$after")
  kill "$before" "$after"
  wait "$before" "$after" || true
  pids=()
  echo "| $pair | $(percent $((b1 - b0))) % | $(percent $((a1 - a0))) % |" \
    "$(awk -v a=$((a1 - a0)) -v b=$((b1 - b0)) 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }') |"
done
echo
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
