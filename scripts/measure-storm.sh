#!/usr/bin/env bash
# Daemon storm: N HTTP jobs due every second on R replicas sharing one Redis; does every firing run
# exactly once, and how late does each request reach its receiver? (numbers go to
# benchmarks/JOURNAL.md, "Daemon storm").
#
# Usage: scripts/measure-storm.sh N [window-seconds=60] [replicas=3] [warm-up-seconds=40]
# Env:   JSTACK=1 takes a thread dump of each replica in the middle of the window (with KEEP=1);
#        REDIS_URL (default redis://127.0.0.1:6379/0), OUT (default target/measure/storm.md,
#        a section is appended per run), STORM_JAVA_OPTS (added to each daemon's JVM options).
#
# Needs the jar (mvn -B -ntp -q package -DskipTests), a Redis server, java, python3, curl.
# The receiver is scripts/StormSink.java (a JDK HttpServer on 127.0.0.1, keep-alive, records the
# X-Leasehold-* headers and the receive time). Each run uses a fresh key prefix and deletes its
# keys at the end. Everything else lives under a mktemp -d directory removed on exit (KEEP=1 keeps
# it); every process is stopped by its pid. Exit 1 when a process does not start in time.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
n=${1:?usage: scripts/measure-storm.sh N [window-seconds] [replicas] [warm-up-seconds]}
window=${2:-60}
replicas=${3:-3}
warmup=${4:-40}
redis_url=${REDIS_URL:-redis://127.0.0.1:6379/0}
out=${OUT:-$root/target/measure/storm.md}
for v in "$n" "$window" "$replicas" "$warmup"; do
  [[ $v =~ ^[1-9][0-9]*$ ]] || { echo "measure-storm: arguments must be positive integers, got '$v'" >&2; exit 2; }
done
[ -f app/target/leasehold.jar ] || { echo "measure-storm: build first: mvn -B -ntp -q package -DskipTests" >&2; exit 2; }

work=$(mktemp -d)
prefix="storm-$$-$(date +%s):"
pids=()
sink_pid=
cleanup() {
  for p in "${pids[@]:-}" $sink_pid; do
    [ -n "$p" ] && kill -9 "$p" 2>/dev/null || true
  done
  redis_cli --scan --pattern "${prefix}*" 2>/dev/null \
    | xargs -r -n 500 redis-cli -h "$r_host" -p "$r_port" -n "$r_db" DEL > /dev/null || true
  [ "${KEEP:-0}" = 1 ] && echo "kept $work" >&2 || rm -rf "$work"
}
redis_host=$(python3 -c 'import sys,urllib.parse as u; p=u.urlparse(sys.argv[1]); print(p.hostname or "127.0.0.1", p.port or 6379, (p.path or "/0").strip("/") or 0)' "$redis_url")
read -r r_host r_port r_db <<< "$redis_host"
redis_cli() { redis-cli -h "$r_host" -p "$r_port" -n "$r_db" "$@"; }
trap cleanup EXIT
redis_cli PING > /dev/null || { echo "measure-storm: Redis at $redis_url does not answer" >&2; exit 1; }

wait_for() { # seconds description test-command...
  local limit=$1 what=$2; shift 2
  for _ in $(seq 1 $((limit * 10))); do
    "$@" && return 0
    sleep 0.1
  done
  echo "measure-storm: $what not within ${limit}s" >&2
  exit 1
}

# --- the sink ----------------------------------------------------------------------------------
# the JDK server closes idle connections beyond 200 and after 30 s: a client whose pooled
# connection was closed that way sees "received no bytes", which would be the sink's doing
java -XX:+UseSerialGC -Xmx512m -Dsun.net.httpserver.maxIdleConnections=100000 \
  -Dsun.net.httpserver.idleInterval=3600 "$root/scripts/StormSink.java" "$work/sink.port" "$work/ledger" \
  > "$work/sink.log" 2>&1 &
sink_pid=$!
wait_for 60 "the sink listening" test -s "$work/sink.port"
port=$(cat "$work/sink.port")

# --- the jobs ------------------------------------------------------------------------------------
{
  cat <<YAML
node: \${NODE}
store:
  type: redis
  url: $redis_url
  key-prefix: "$prefix"
admin:
  listen: \${ADMIN:-127.0.0.1:0}
jobs:
YAML
  for i in $(seq -w 1 "$n"); do
    printf '  - name: storm-%s\n    every: 1s\n    http: { url: "http://127.0.0.1:%s/job/%s", timeout: 10s }\n' "$i" "$port" "$i"
  done
} > "$work/storm.yaml"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# --- the daemons -----------------------------------------------------------------------------------
declare -a nodes admins
for r in $(seq 1 "$replicas"); do
  node=storm-$r
  admin=127.0.0.1:$(free_port)
  NODE=$node ADMIN=$admin LEASEHOLD_JAVA_OPTS="${STORM_JAVA_OPTS:-}" \
    setsid bin/leasehold run --config "$work/storm.yaml" > "$work/$node.log" 2>&1 &
  pids+=($!)
  nodes+=("$node")
  admins+=("$admin")
done
for r in "${!nodes[@]}"; do
  wait_for 120 "${nodes[$r]} logging 'started:'" grep -q 'started:' "$work/${nodes[$r]}.log"
done

cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; } # utime + stime, clock ticks
sys() { awk '{print $15}' "/proc/$1/stat"; }        # stime alone
hz=$(getconf CLK_TCK)
# CPU ticks per kind of thread (the name without its number), utime+stime, of one process
by_thread() {
  for t in /proc/"$1"/task/*; do
    awk '{c=$0; sub(/^[^(]*\(/, "", c); sub(/\).*/, "", c); gsub(/[0-9]+$/, "", c); gsub(/ /, "_", c);
          n=split($0, f, ") "); split(f[n], g, " "); print c, g[12] + g[13]}' "$t/stat" 2>/dev/null \
      || true # a thread that ended since the glob: under set -e its failed read ended the script
  done | awk '{a[$1]+=$2} END {for (k in a) print k, a[k]}'
}
sleep "$warmup"
# before the window, not inside it: one awk per thread takes many seconds on an overloaded machine,
# and read between the CPU counters it stretched their interval far past the window (the per-kind
# split therefore covers this read and the wait for the next second as well)
by_thread "${pids[0]}" > "$work/threads.start"
# the window starts at the next whole second
now_ms=$(date +%s%3N)
sleep "$(printf '0.%03d' $(( (1000 - now_ms % 1000) % 1000 )))"
t0=$(( (now_ms + 999) / 1000 ))
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
cpu_start=(); for p in "${pids[@]}"; do cpu_start+=("$(cpu "$p")"); done
sys_start=(); for p in "${pids[@]}"; do sys_start+=("$(sys "$p")"); done
sink_cpu_start=$(cpu "$sink_pid")
if [ "${JSTACK:-0}" = 1 ]; then # thread dumps of every replica in the middle of the window
  sleep "$(( window / 2 ))"
  for r in "${!nodes[@]}"; do jstack "${pids[$r]}" > "$work/${nodes[$r]}.jstack" 2>&1 || true; done
  sleep "$(( window - window / 2 ))"
else
  sleep "$window"
fi
for r in "${!nodes[@]}"; do
  kill -0 "${pids[$r]}" 2>/dev/null || {
    echo "measure-storm: ${nodes[$r]} (pid ${pids[$r]}) ended during the window; see its log:" >&2
    tail -3 "$work/${nodes[$r]}.log" >&2
    exit 1
  }
done
cpu_end=(); for p in "${pids[@]}"; do cpu_end+=("$(cpu "$p")"); done
sys_end=(); for p in "${pids[@]}"; do sys_end+=("$(sys "$p")"); done
sink_cpu_end=$(cpu "$sink_pid")
by_thread "${pids[0]}" > "$work/threads.end"
load_end=$(cut -d' ' -f1-3 /proc/loadavg)
lines_window=(); for node in "${nodes[@]}"; do lines_window+=("$(wc -l < "$work/$node.log")"); done
threads=(); for p in "${pids[@]}"; do threads+=("$(ls "/proc/$p/task" | wc -l)"); done
for r in "${!nodes[@]}"; do
  curl -fsS "http://${admins[$r]}/metrics" > "$work/${nodes[$r]}.metrics" 2>/dev/null || true
done
sleep 5 # firings of the window's last seconds finish

# --- stop, collect -------------------------------------------------------------------------------------
for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
for p in "${pids[@]}"; do
  for _ in $(seq 1 400); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$p" 2>/dev/null || true
done
pids=()
curl -fsS -X POST "http://127.0.0.1:$port/dump" > /dev/null
NODE=reader bin/leasehold history --config "$work/storm.yaml" --limit 100000000 --json \
  > "$work/history.json" 2> "$work/history.err" || { echo "measure-storm: history failed:" >&2; cat "$work/history.err" >&2; exit 1; }

cpus=""
for r in "${!nodes[@]}"; do
  cpus+="${nodes[$r]}:$(( cpu_end[r] - cpu_start[r] )):${lines_window[$r]}:${threads[$r]}:$(( sys_end[r] - sys_start[r] )) "
done
mkdir -p "$(dirname "$out")"
python3 - "$work" "$n" "$window" "$replicas" "$t0" "$hz" "$load_start" "$load_end" \
  "$cpus" "$(( sink_cpu_end - sink_cpu_start ))" "$(java -version 2>&1 | head -1)" <<'PY' | tee -a "$out"
import json, sys, os, datetime as dt, collections
work, n, window, replicas, t0, hz = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
load_start, load_end, cpus, sink_cpu, jvm = sys.argv[7], sys.argv[8], sys.argv[9].split(), int(sys.argv[10]), sys.argv[11]
t1 = t0 + window
def iso_ms(s): return round(dt.datetime.fromisoformat(s.replace('Z', '+00:00')).timestamp() * 1000)
def pct(v, p): return v[min(len(v) - 1, int(round(p / 100 * (len(v) - 1))))] if v else float('nan')
jobs = {f"storm-{i:0{len(str(n))}d}" for i in range(1, n + 1)}
expected = {(j, (t0 + k) * 1000) for j in jobs for k in range(window)}

seen = collections.Counter(); lag = {}; dropped = 0; by_node = collections.Counter()
for line in open(os.path.join(work, 'ledger')):
    if line.startswith('# dropped'):
        dropped = int(line.split()[2]); continue
    recv, job, fire, fence, node = line.split()
    f = iso_ms(fire)
    if (job, f) not in expected: continue
    seen[(job, f)] += 1; by_node[node] += 1
    lag.setdefault((job, f), int(recv) / 1000 - f)
dups = sum(c - 1 for c in seen.values() if c > 1)
missing = expected - set(seen)
lags = sorted(lag.values())

hist = [h for h in json.load(open(os.path.join(work, 'history.json')))
        if h['job'] in jobs and t0 * 1000 <= iso_ms(h['fire_time']) < t1 * 1000 and h.get('trigger') == 'scheduled']
outcomes = collections.Counter(h['outcome'] for h in hist)
ran = collections.Counter((h['job'], iso_ms(h['fire_time'])) for h in hist if h['outcome'] not in ('missed', 'skipped'))
hist_dups = sum(c - 1 for c in ran.values() if c > 1)
sched = sorted(iso_ms(h['started_at']) - iso_ms(h['fire_time']) for h in hist if h['outcome'] not in ('missed', 'skipped'))
unrecorded = len(expected - {(h['job'], iso_ms(h['fire_time'])) for h in hist})

print(f"\n## N = {n} HTTP jobs every 1 s, {replicas} replica(s), {window} s window\n")
print(f"- {dt.datetime.utcnow():%Y-%m-%d %H:%M} UTC, {os.cpu_count()} cores, {jvm}; window from {dt.datetime.utcfromtimestamp(t0):%H:%M:%S} UTC")
print(f"- load average (1, 5, 15 min) at the window's start: {load_start}; at its end: {load_end}")
print(f"- sink: {sum(seen.values())} requests of the window received, {dropped} dropped by its bound\n")
print("| firings expected | run (seen by the sink) | duplicates | missed (never received) | history outcomes | firings without a history row | history duplicates |")
print("| ---: | ---: | ---: | ---: | --- | ---: | ---: |")
shown = ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items())) or "none"
print(f"| {len(expected)} | {len(seen)} | {dups} | {len(missing)} | {shown} | {unrecorded} | {hist_dups} |\n")
print("| fire lag | p50 | p90 | p99 | max |")
print("| --- | ---: | ---: | ---: | ---: |")
print(f"| request received − scheduled instant | {pct(lags,50):.1f} ms | {pct(lags,90):.1f} ms | {pct(lags,99):.1f} ms | {lags[-1] if lags else float('nan'):.1f} ms |")
print(f"| history started_at − fire_time | {pct(sched,50):.0f} ms | {pct(sched,90):.0f} ms | {pct(sched,99):.0f} ms | {sched[-1] if sched else float('nan'):.0f} ms |\n")
print("| replica | firings run | CPU in the window | CPU % of one core | of it in the kernel | CPU per firing | log lines at the window's end | threads at the window's end |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
total = ktotal = 0
for c in cpus:
    node, ticks, lines, nthreads, sticks = c.split(':'); s = int(ticks) / hz; total += s; ktotal += int(sticks) / hz
    runs = by_node.get(node, 0)
    print(f"| {node} | {runs} | {s:.1f} s | {100*s/window:.0f} % | {int(sticks)/hz:.1f} s | {1000*s/runs if runs else float('nan'):.2f} ms | {lines} | {nthreads} |")
print(f"| all replicas | {len(seen)} | {total:.1f} s | {100*total/window:.0f} % | {ktotal:.1f} s | {1000*total/len(seen) if seen else float('nan'):.2f} ms | | |")
print(f"| the sink | {sum(seen.values())} requests | {sink_cpu/hz:.1f} s | {100*sink_cpu/hz/window:.0f} % | | {1000*sink_cpu/hz/sum(seen.values()) if seen else float('nan'):.3f} ms | | |")
if seen and sink_cpu:
    print(f"\nCPU per firing, all replicas together: {total/len(seen)/(sink_cpu/hz/sum(seen.values())):.1f} × the sink's CPU per request received (the reference of this run)")
def ticks(f):
    try: return {k: int(v) for k, v in (l.split() for l in open(os.path.join(work, f)))}
    except (OSError, ValueError): return {}
a, b = ticks('threads.start'), ticks('threads.end')
kinds = sorted(((b[k] - a.get(k, 0)) / hz, k) for k in b if b[k] - a.get(k, 0) > 0)[::-1]
if kinds:
    print(f"\nCPU of {cpus[0].split(':')[0]} in the window by kind of thread (threads ended during the window not counted): "
          + ", ".join(f"{k} {v:.1f} s" for v, k in kinds[:8]))
if missing:
    ex = sorted(missing, key=lambda x: (x[1], x[0]))[:5]
    print("\nfirst missed: " + ", ".join(f"{j}@{dt.datetime.utcfromtimestamp(f/1000):%H:%M:%S}" for j, f in ex))
PY
for node in "${nodes[@]}"; do
  grep -E ' (WARN|ERROR) ' "$work/$node.log" | head -5 | sed "s/^/$node: /" >&2 || true
done
