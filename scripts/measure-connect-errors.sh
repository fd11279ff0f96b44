#!/usr/bin/env bash
# How soon `validate --connect` reports a store where nothing listens, per store type, next to
# `validate` without --connect on the same file (the same JVM start and config load, no I/O): the
# reference, measured in the same run (benchmarks/JOURNAL.md, "Connection errors").
#
#   scripts/measure-connect-errors.sh                 # RUNS=5, JAR=app/target/leasehold.jar
#   OLD_JAR=/path/to/older/leasehold.jar scripts/measure-connect-errors.sh
#
# Each store's URL points at a loopback port that was bound and released (nothing listens there);
# store.command-timeout is 20s, so a store that waited out a pool or a server selection shows it.
# Rounds are interleaved so load drift hits every kind alike. With OLD_JAR, the same commands of
# that jar are measured too, in the same rounds. Prints a Markdown table (median ms, ratio to the
# reference) with `uptime` before and after, and the error line of each store. Writes only to a
# fresh temporary directory, removed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
JAR=${JAR:-$(pwd)/app/target/leasehold.jar}
OLD_JAR=${OLD_JAR:-}
[ -f "$JAR" ] || { echo "no $JAR: run mvn -B -ntp -q -pl app -am package -DskipTests first" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/leasehold-connect.XXXXXX")
trap 'rm -rf "$work"' EXIT
port=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1]);s.close()')
stores=(mariadb postgres redis mongo etcd zookeeper)
declare -A url=(
  [mariadb]="jdbc:mariadb://127.0.0.1:$port/test" [postgres]="jdbc:postgresql://127.0.0.1:$port/test"
  [redis]="redis://127.0.0.1:$port/0" [mongo]="mongodb://127.0.0.1:$port/lh"
  [etcd]="http://127.0.0.1:$port" [zookeeper]="zk://127.0.0.1:$port")
for s in "${stores[@]}"; do
  printf 'store:\n  type: %s\n  url: %s\n  command-timeout: 20s\njobs:\n  - name: a\n    every: 1m\n    command: ["true"]\n' \
    "$s" "${url[$s]}" > "$work/$s.yaml"
done
ms() { local a b; a=$(date +%s%N); "$@" > "$work/last.out" 2>&1 || true; b=$(date +%s%N); echo $(( (b - a) / 1000000 )); }
median() { tr ' ' '\n' | grep . | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
declare -A t line
echo "uptime before: $(uptime)"
for round in $(seq "$RUNS"); do
  for s in "${stores[@]}"; do
    t[$s.ref]+=" $(ms java -jar "$JAR" validate --config "$work/$s.yaml")"
    t[$s.new]+=" $(ms java -jar "$JAR" validate --connect --config "$work/$s.yaml")"
    line[$s.new]=$(tail -1 "$work/last.out")
    if [ -n "$OLD_JAR" ]; then
      t[$s.old]+=" $(ms java -jar "$OLD_JAR" validate --connect --config "$work/$s.yaml")"
      line[$s.old]=$(tail -1 "$work/last.out")
    fi
  done
done
echo "uptime after: $(uptime)"
echo
if [ -n "$OLD_JAR" ]; then
  echo "| store | validate (reference) | validate --connect | ratio | OLD_JAR validate --connect | ratio |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: |"
else
  echo "| store | validate (reference) | validate --connect | ratio |"
  echo "| --- | ---: | ---: | ---: |"
fi
for s in "${stores[@]}"; do
  ref=$(echo "${t[$s.ref]}" | median); new=$(echo "${t[$s.new]}" | median)
  row="| $s | $ref ms | $new ms | $(awk "BEGIN {printf \"%.2f\", $new / $ref}") |"
  if [ -n "$OLD_JAR" ]; then
    old=$(echo "${t[$s.old]}" | median)
    row+=" $old ms | $(awk "BEGIN {printf \"%.2f\", $old / $ref}") |"
  fi
  echo "$row"
done
echo
for s in "${stores[@]}"; do
  echo "$s: ${line[$s.new]}"
  [ -z "$OLD_JAR" ] || echo "$s (OLD_JAR): ${line[$s.old]}"
done
