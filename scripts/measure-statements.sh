#!/usr/bin/env bash
# Statements per firing on MariaDB (numbers go to benchmarks/JOURNAL.md): REPLICAS daemons of
# this checkout on one fresh database, JOBS jobs every second (plus IDLE_JOBS that never fire in
# the window), counted in the server's general log (log_output = TABLE) over WINDOW seconds after
# WARM seconds; prints the statements by kind and per firing.
#
#   scripts/measure-statements.sh                 # REPLICAS=3 JOBS=1 IDLE_JOBS=0 WARM=15 WINDOW=60
#   JOBS=0 IDLE_JOBS=10 WINDOW=120 scripts/measure-statements.sh   # idle: nothing fires
#   SHOW=1 scripts/measure-statements.sh          # also the statements, by their first 90 characters
#
# Needs app/target/leasehold.jar (mvn -B -ntp -q package -DskipTests) and MariaDB on
# 127.0.0.1:3306 (root, no password; bash .ci/services.sh). Turns the general log on for the
# window only and off again; the database and the daemons are removed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
REPLICAS=${REPLICAS:-3}
JOBS=${JOBS:-1}
IDLE_JOBS=${IDLE_JOBS:-0}
WARM=${WARM:-15}
WINDOW=${WINDOW:-60}
jar=${JAR:-$(pwd)/app/target/leasehold.jar}
[ -f "$jar" ] || { echo "build first: mvn -B -ntp -q package -DskipTests" >&2; exit 2; }
db=lh_stmts_$$
work=$(mktemp -d "${TMPDIR:-/tmp}/leasehold-stmts.XXXXXX")
sql() { mariadb -h127.0.0.1 -uroot -N -B -e "$1"; }
pids=()
cleanup() {
  sql "SET GLOBAL general_log = 'OFF'" || true
  for p in "${pids[@]:-}"; do [ -n "$p" ] && kill -KILL -- "-$p" 2>/dev/null || true; done
  sql "DROP DATABASE IF EXISTS $db; DROP USER IF EXISTS '$db'@'%'" || true
  rm -rf "$work"
}
trap cleanup EXIT
# a user of its own, so that the count sees only these daemons (other sessions may share the server)
sql "CREATE DATABASE $db; CREATE USER '$db'@'%' IDENTIFIED BY '$db'; GRANT ALL ON $db.* TO '$db'@'%'"

{
  echo "node: \${NODE}"
  echo "store:"
  echo "  type: mariadb"
  echo "  url: jdbc:mariadb://127.0.0.1:3306/$db"
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

sql "SET GLOBAL log_output = 'TABLE'; TRUNCATE mysql.general_log; SET GLOBAL general_log = 'ON'"
sleep "$WINDOW"
sql "SET GLOBAL general_log = 'OFF'"

# the connections of the daemons: those of their own user
threads=$(sql "SELECT GROUP_CONCAT(DISTINCT thread_id) FROM mysql.general_log
  WHERE user_host LIKE '$db[$db]%'")
[ -n "$threads" ] && [ "$threads" != "NULL" ] || { echo "no statements seen" >&2; exit 1; }
kinds="SELECT LOWER(SUBSTRING_INDEX(TRIM(CONVERT(argument USING utf8mb4)), ' ', 1)) AS verb,
  CASE WHEN argument LIKE '%task\\_execution%' THEN 'task_execution'
       WHEN argument LIKE '%task\\_lock%' THEN 'task_lock'
       WHEN argument LIKE '%task\\_node%' THEN 'task_node'
       WHEN argument LIKE '%task\\_journal%' THEN 'task_journal'
       ELSE '-' END AS tbl
  FROM mysql.general_log WHERE thread_id IN ($threads) AND command_type IN ('Query', 'Execute')"
total=$(sql "SELECT COUNT(*) FROM ($kinds) k WHERE verb NOT IN ('set', 'commit', 'rollback', 'start')")
firings=$(sql "SELECT COUNT(*) FROM $db.task_execution WHERE job LIKE '%tick-%' AND started_at >=
  (SELECT MIN(event_time) FROM mysql.general_log) AND started_at <= (SELECT MAX(event_time) FROM mysql.general_log)" 2>/dev/null || echo "?")
echo "replicas $REPLICAS, jobs every 1s $JOBS, idle jobs $IDLE_JOBS, window ${WINDOW}s, load $(cut -d' ' -f1-3 /proc/loadavg)"
sql "SELECT verb, tbl, COUNT(*) FROM ($kinds) k GROUP BY verb, tbl ORDER BY COUNT(*) DESC" \
  | awk '{ printf "  %-8s %-15s %6d\n", $1, $2, $3 }'
if [ -n "${SHOW:-}" ]; then
  sql "SELECT COUNT(*), LEFT(REGEXP_REPLACE(CONVERT(argument USING utf8mb4), '[[:space:]]+', ' '), 90)
    FROM mysql.general_log WHERE thread_id IN ($threads) AND command_type IN ('Query', 'Execute')
    GROUP BY 2 ORDER BY 1 DESC LIMIT 25"
fi
echo "statements (without set/commit/rollback/start): $total"
echo "firings recorded in the window: $firings"
if [ "$firings" != "?" ] && [ "$firings" -gt 0 ]; then
  awk -v t="$total" -v f="$firings" 'BEGIN { printf "statements per firing: %.1f\n", t / f }'
fi
awk -v t="$total" -v w="$WINDOW" 'BEGIN { printf "statements per second: %.2f\n", t / w }'
