#!/usr/bin/env bash
# Statements per firing on PostgreSQL, the companion of measure-statements.sh (numbers go to
# benchmarks/JOURNAL.md): REPLICAS daemons of this checkout on one fresh database and role, JOBS
# jobs every second (plus IDLE_JOBS that never fire in the window), counted in the server's log
# (the role has log_statement = all, so only its sessions' statements are logged) over WINDOW
# seconds after WARM seconds.
#
#   scripts/measure-statements-postgres.sh                 # REPLICAS=3 JOBS=1 IDLE_JOBS=0 WARM=15 WINDOW=60
#   JOBS=0 IDLE_JOBS=10 WINDOW=120 scripts/measure-statements-postgres.sh
#   SHOW=1 ...                                             # also the statements, by their first 90 characters
#
# Needs app/target/leasehold.jar (or JAR=) and PostgreSQL on 127.0.0.1:5432 (user postgres, no
# password) whose log this user can read (LOG=, default the Debian cluster's log file). The
# database and the role are removed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
REPLICAS=${REPLICAS:-3}
JOBS=${JOBS:-1}
IDLE_JOBS=${IDLE_JOBS:-0}
WARM=${WARM:-15}
WINDOW=${WINDOW:-60}
LOG=${LOG:-/var/log/postgresql/postgresql-15-main.log}
jar=${JAR:-$(pwd)/app/target/leasehold.jar}
[ -f "$jar" ] || { echo "build first: mvn -B -ntp -q package -DskipTests" >&2; exit 2; }
[ -r "$LOG" ] || { echo "cannot read the server log $LOG (LOG=)" >&2; exit 2; }
db=lh_pgstmts_$$
work=$(mktemp -d "${TMPDIR:-/tmp}/leasehold-pgstmts.XXXXXX")
sql() { psql -h 127.0.0.1 -U postgres -d "${2:-postgres}" -Atq -c "$1"; }
pids=()
cleanup() {
  for p in "${pids[@]:-}"; do [ -n "$p" ] && kill -KILL -- "-$p" 2>/dev/null || true; done
  sleep 1
  sql "DROP DATABASE IF EXISTS $db WITH (FORCE)" || true
  sql "DROP ROLE IF EXISTS $db" || true
  rm -rf "$work"
}
trap cleanup EXIT
sql "CREATE ROLE $db LOGIN PASSWORD '$db'"
sql "CREATE DATABASE $db OWNER $db"
sql "ALTER ROLE $db SET log_statement = 'all'"

{
  echo "node: \${NODE}"
  echo "store:"
  echo "  type: postgres"
  echo "  url: jdbc:postgresql://127.0.0.1:5432/$db"
  echo "  username: $db"
  echo "  password: $db"
  echo "jobs:"
  for i in $(seq 1 "$JOBS"); do
    printf '  - name: tick-%s\n    every: 1s\n    command: ["true"]\n' "$i"
  done
  for i in $(seq 1 "$IDLE_JOBS"); do
    printf '  - name: idle-%s\n    cron: "0 0 1 1 *"\n    command: ["true"]\n' "$i"
  done
} > "$work/leasehold.yaml"

for r in $(seq 1 "$REPLICAS"); do
  NODE=stmt-$r setsid java -jar "$jar" run --config "$work/leasehold.yaml" \
    > "$work/stmt-$r.log" 2>&1 &
  pids+=("$!")
done
sleep "$WARM"
for r in $(seq 1 "$REPLICAS"); do
  grep -q "started" "$work/stmt-$r.log" || { echo "replica $r did not start:" >&2; cat "$work/stmt-$r.log" >&2; exit 1; }
done

from=$(stat -c %s "$LOG")
start=$(date -u +'%Y-%m-%d %H:%M:%S')
sleep "$WINDOW"
end=$(date -u +'%Y-%m-%d %H:%M:%S')
tail -c +"$((from + 1))" "$LOG" | grep -a " $db@$db LOG:  \(statement\|execute [^ ]*\): " \
  | sed -e 's/.* LOG:  \(statement\|execute [^ ]*\): //' > "$work/statements" || true
firings=$(sql "SELECT COUNT(*) FROM task_execution WHERE job LIKE 'tick-%'
  AND started_at >= TIMESTAMP '$start' AND started_at <= TIMESTAMP '$end'" "$db")
kind() { awk '{ v = tolower($1); t = "-";
  if ($0 ~ /task_execution/) t = "task_execution"; else if ($0 ~ /task_lock/) t = "task_lock";
  else if ($0 ~ /task_node/) t = "task_node"; else if ($0 ~ /task_journal/) t = "task_journal";
  print v, t }' "$work/statements"; }
echo "replicas $REPLICAS, jobs every 1s $JOBS, idle jobs $IDLE_JOBS, window ${WINDOW}s, load $(cut -d' ' -f1-3 /proc/loadavg)"
kind | sort | uniq -c | sort -rn | awk '{ printf "  %-8s %-15s %6d\n", $2, $3, $1 }'
if [ -n "${SHOW:-}" ]; then
  cut -c1-90 "$work/statements" | sort | uniq -c | sort -rn | head -25
fi
# an empty query is the pool's check that a connection is alive (HikariCP's isValid on a
# connection idle for over 500 ms): a round trip, but no statement; counted apart
empty=$(grep -c '^[[:space:]]*$' "$work/statements" || true)
total=$(grep -v '^[[:space:]]*$' "$work/statements" \
  | awk '{ v = tolower($1) } v !~ /^(set|show|begin|commit|rollback|start)$/' | wc -l)
echo "statements (without set/show/begin/commit/rollback/start): $total"
echo "empty queries (the pool's aliveness checks, not counted above): $empty"
echo "firings recorded in the window: $firings"
if [ "$firings" -gt 0 ]; then
  awk -v t="$total" -v f="$firings" 'BEGIN { printf "statements per firing: %.1f\n", t / f }'
fi
awk -v t="$total" -v w="$WINDOW" 'BEGIN { printf "statements per second: %.2f\n", t / w }'
