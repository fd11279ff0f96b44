#!/usr/bin/env bash
# What a PostgreSQL failover does to live leases and fences, measured on one machine.
#
# Builds a throwaway primary and a streaming standby (initdb + pg_basebackup, free ports, a temp
# dir, run as user postgres), runs two daemons on the primary through a multi-host JDBC URL
# (targetServerType=primary, so they follow the promotion), cuts the standby off the primary for
# 5 s (primary_conninfo = '': a replica that lags), kills the primary (immediate shutdown),
# promotes the standby, and lets the daemons run on. Then it reads the ledger:
# duplicate firings, repeated fences, fences that go down.
#
#   bash scripts/pg-failover.sh async   # synchronous_standby_names = ''  (PostgreSQL's default)
#   bash scripts/pg-failover.sh sync    # synchronous_standby_names = '*'
#
# Needs root (to run the clusters as postgres), PostgreSQL's server binaries, and
# app/target/leasehold.jar (mvn -pl app -am package). Leaves nothing behind.
set -euo pipefail
mode=${1:-async}
case $mode in async | sync) ;; *) echo "usage: $0 async|sync" >&2; exit 2 ;; esac
root=$(cd "$(dirname "$0")/.." && pwd)
jar=$root/app/target/leasehold.jar
[ -f "$jar" ] || { echo "build the jar first: mvn -pl app -am package -DskipTests" >&2; exit 2; }
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
pg() { su postgres -s /bin/bash -c "$*"; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

work=$(mktemp -d /tmp/lh-pg-failover.XXXXXX)
chmod 755 "$work"
chown postgres "$work"
p1=$(free_port)
p2=$(free_port)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -9 -- "-$pid" 2>/dev/null || true; done
  pg "$bin/pg_ctl -D $work/primary stop -m immediate" >/dev/null 2>&1 || true
  pg "$bin/pg_ctl -D $work/standby stop -m immediate" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
log() { echo "[$(date -u +%H:%M:%S)] $*"; }

log "primary on :$p1, standby on :$p2, mode $mode, in $work"
pg "$bin/initdb -D $work/primary -A trust -U postgres" >"$work/initdb.log"
cat >>"$work/primary/postgresql.conf" <<EOF
port = $p1
listen_addresses = '127.0.0.1'
unix_socket_directories = '$work'
wal_level = replica
max_wal_senders = 4
EOF
echo "host replication all 127.0.0.1/32 trust" >>"$work/primary/pg_hba.conf"
pg "$bin/pg_ctl -D $work/primary -l $work/primary.log -w start" >/dev/null
pg "$bin/createdb -h 127.0.0.1 -p $p1 lh"
pg "$bin/pg_basebackup -h 127.0.0.1 -p $p1 -D $work/standby -R -X stream -c fast" >/dev/null
sed -i "s/^port = .*/port = $p2/" "$work/standby/postgresql.conf"
pg "$bin/pg_ctl -D $work/standby -l $work/standby.log -w start" >/dev/null
# only now: with a synchronous standby named before it exists, every commit would wait for it
if [ "$mode" = sync ]; then
  pg "$bin/psql -h 127.0.0.1 -p $p1 -qc \"alter system set synchronous_standby_names = '*'\" -c 'select pg_reload_conf()'" >/dev/null
fi
sleep 2
log "replication: $(pg "$bin/psql -h 127.0.0.1 -p $p1 -Atc \"select application_name || ' ' || state || ' ' || sync_state from pg_stat_replication\"")"

ledger=$work/ledger
for node in pg-a pg-b; do
  cat >"$work/$node.yaml" <<EOF
node: $node
shutdown-grace: 5s
store:
  type: postgres
  url: jdbc:postgresql://127.0.0.1:$p1,127.0.0.1:$p2/lh?targetServerType=primary
  username: postgres
lease:
  ttl: 3s
jobs:
  - name: tick
    every: 1s
    command: [sh, -c, 'echo "\$LEASEHOLD_FIRE_TIME \$LEASEHOLD_NODE \$LEASEHOLD_FENCE" >> "$ledger"']
  - name: long
    every: 30s
    renew-every: 1s
    kill-grace: 1s
    command: [sh, -c, 'sleep 25']
EOF
  setsid java -XX:+UseSerialGC -Xmx128m -XX:TieredStopAtLevel=1 -jar "$jar" run --config "$work/$node.yaml" \
    >"$work/$node.log" 2>&1 &
  pids+=($!)
done
for node in pg-a pg-b; do
  for _ in $(seq 1 120); do grep -q '] started: ' "$work/$node.log" && break; sleep 1; done
done
log "daemons started"
sleep 8

log "cutting the standby off the primary (primary_conninfo = '') for 5 s: a replica that lags"
stall_from=$(date -u +%s)
pg "$bin/psql -h 127.0.0.1 -p $p2 -qc \"alter system set primary_conninfo = ''\" -c 'select pg_reload_conf()'" >/dev/null
sleep 5
log "killing the primary (immediate shutdown); last run: $(tail -1 "$ledger")"
pg "$bin/pg_ctl -D $work/primary stop -m immediate" >/dev/null
pg "$bin/pg_ctl -D $work/standby -w promote" >/dev/null
promoted=$(date -u +%s)
log "standby promoted"
sleep 15
for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
pids=()

echo "--- ledger around the failover (fire time, node, fence) ---"
awk -v from="$stall_from" '{ cmd = "date -u -d " $1 " +%s"; cmd | getline t; close(cmd);
  if (t >= from - 2) print }' "$ledger"
runs=$(wc -l <"$ledger")
dups=$(awk '{print $1}' "$ledger" | sort | uniq -d | wc -l)
fence_repeats=$(awk '{print $3}' "$ledger" | sort -n | uniq -d | wc -l)
fence_drops=$(sort "$ledger" | awk 'NR > 1 && $3 <= last { n++ } { last = $3 } END { print n + 0 }')
stalled_runs=$(awk -v from="$stall_from" '{ cmd = "date -u -d " $1 " +%s"; cmd | getline t; close(cmd);
  if (t >= from && t < from + 5) n++ } END { print n + 0 }' "$ledger")
echo "--- the long job (25 s on a 3 s lease renewed every second) ---"
grep -h 'execution job=long\|lease lost job=long' "$work"/pg-*.log | sed 's/^[0-9-]* //' | cut -c1-200 || true
echo "--- $mode: $runs runs; firings run twice: $dups; fences used twice: $fence_repeats;" \
  "fences not rising with firings: $fence_drops; runs during the 5 s lag: $stalled_runs;" \
  "the standby was promoted $(( promoted - stall_from - 5 )) s after the primary died"
