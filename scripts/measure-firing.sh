#!/usr/bin/env bash
# Whole-process measurements of the daemon (numbers go to benchmarks/JOURNAL.md):
#   1. fire precision: how late a command job starts after its scheduled instant, seen by the
#      job itself (includes fork/exec of sh) and by the scheduler (history started_at);
#   2. failover time: kill -9 the replica that holds a lease mid-run; how long until another
#      replica starts the job again.
# Usage: scripts/measure-firing.sh [mariadb|postgres|h2] [seconds-of-precision-run] [failovers]
# Needs the jar (mvn -B -ntp -q package -DskipTests) and, for mariadb/postgres, the servers
# (bash .ci/services.sh). Everything runs under target/measure/ and is cleaned up on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
store=${1:-mariadb}
precision_seconds=${2:-60}
failovers=${3:-5}
jar=app/target/leasehold.jar
[ -f "$jar" ] || { echo "build first: mvn -B -ntp -q package -DskipTests" >&2; exit 2; }
work=$(pwd)/target/measure/$store-$$
mkdir -p "$work"
pids=()
cleanup() { for p in "${pids[@]:-}"; do kill -9 -- "-$p" 2>/dev/null || true; done; }
trap cleanup EXIT

db=lh_measure_$$
case $store in
  mariadb)
    mariadb -h127.0.0.1 -uroot -e "CREATE DATABASE $db"
    trap 'cleanup; mariadb -h127.0.0.1 -uroot -e "DROP DATABASE IF EXISTS '$db'"' EXIT
    store_yaml="type: mariadb
  url: jdbc:mariadb://127.0.0.1:3306/$db
  username: root" ;;
  postgres)
    psql -q -h 127.0.0.1 -U postgres -d test -c "CREATE SCHEMA $db"
    trap 'cleanup; psql -q -h 127.0.0.1 -U postgres -d test -c "DROP SCHEMA IF EXISTS '$db' CASCADE"' EXIT
    store_yaml="type: postgres
  url: jdbc:postgresql://127.0.0.1:5432/test?currentSchema=$db
  username: postgres" ;;
  h2)
    store_yaml="type: h2
  url: jdbc:h2:file:$work/h2db" ;;
  *) echo "unknown store $store" >&2; exit 2 ;;
esac

config() { # name job-command
  cat > "$work/$1.yaml" <<YAML
node: \${NODE}
store:
  $store_yaml
lease:
  ttl: 3s
  renew-every: 1s
jobs:
  - name: $1
    every: 1s
    misfire-grace: 0s
    command: ["sh", "-c", "$2"]
YAML
}

start() { # config node
  NODE=$2 setsid java -jar "$jar" run --config "$work/$1.yaml" > "$work/$2.log" 2>&1 &
  pids+=($!)
  echo $!
}

# --- 1. fire precision -------------------------------------------------------------------------
config precision 'echo \"$LEASEHOLD_FIRE_TIME $(date +%s%N) $LEASEHOLD_NODE\" >> '"$work"'/precision.ledger'
for n in a b c; do start precision "p-$n" > /dev/null; done
sleep "$((precision_seconds + 15))"
for p in "${pids[@]}"; do kill -TERM -- "-$p" 2>/dev/null || true; done
sleep 3
NODE=x java -jar "$jar" history --config "$work/precision.yaml" --job precision --limit 100000 --json > "$work/history.json"
pids=()

echo "== fire precision ($store, 3 replicas, 1 s job, ${precision_seconds}s after a 15 s warm-up)"
# ledger: fire time (ISO) and the job's own clock (ns); skip the first 15 s (JIT warm-up)
python3 - "$work/precision.ledger" "$work/history.json" <<'PY'
import json, sys, datetime as dt
def iso(s): return dt.datetime.fromisoformat(s.replace('Z', '+00:00')).timestamp()
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
t0 = min(iso(r[0]) for r in rows) + 15
late = sorted((int(r[1]) / 1e9 - iso(r[0])) * 1000 for r in rows if iso(r[0]) >= t0)
hist = [h for h in json.load(open(sys.argv[2])) if h.get('outcome') == 'succeeded' and iso(h['fire_time']) >= t0]
sched = sorted((iso(h['started_at']) - iso(h['fire_time'])) * 1000 for h in hist)
def pct(v, p): return v[min(len(v) - 1, int(round(p / 100 * (len(v) - 1))))]
fires = [r[0] for r in rows]
print(f"firings: {len(late)}  duplicates in ledger: {len(fires) - len(set(fires))}")
for name, v in (("job start (sh wrote its clock)", late), ("scheduler start (history started_at)", sched)):
    if v:
        print(f"{name:38s} p50 {pct(v,50):7.1f} ms  p90 {pct(v,90):7.1f} ms  p99 {pct(v,99):7.1f} ms  max {v[-1]:7.1f} ms  (n={len(v)})")
PY

# --- 2. failover time ----------------------------------------------------------------------------
config failover 'echo \"$LEASEHOLD_FIRE_TIME $(date +%s%N) $LEASEHOLD_NODE\" >> '"$work"'/failover.ledger; sleep 0.8'
declare -A pid_of
for n in a b c; do pid_of[f-$n]=$(start failover "f-$n"); done
sleep 15
echo "== failover ($store, 3 replicas, ttl 3s, 1 s job that runs 0.8 s; kill -9 of the holder)"
results=()
for i in $(seq 1 "$failovers"); do
  last=$(tail -1 "$work/failover.ledger")
  victim=$(echo "$last" | awk '{print $3}')
  kill_ns=$(date +%s%N)
  kill -9 -- "-${pid_of[$victim]}"
  # wait for the first line from another node that started after the kill
  for _ in $(seq 1 100); do
    next=$(awk -v k="$kill_ns" -v v="$victim" '$2 > k && $3 != v {print; exit}' "$work/failover.ledger")
    [ -n "$next" ] && break
    sleep 0.1
  done
  ms=$(( ($(echo "$next" | awk '{print $2}') - kill_ns) / 1000000 ))
  results+=("$ms")
  echo "kill $i: holder $victim killed; $(echo "$next" | awk '{print $3}') ran the job ${ms} ms later"
  pid_of[$victim]=$(start failover "$victim")
  sleep 8
done
printf '%s\n' "${results[@]}" | sort -n | awk '{a[NR]=$1} END {print "failover ms: min " a[1] "  median " a[int((NR+1)/2)] "  max " a[NR] "  (n=" NR ")"}'
dups=$(awk '{print $1}' "$work/failover.ledger" | sort | uniq -d | wc -l)
echo "duplicate firings in the failover ledger: $dups"
