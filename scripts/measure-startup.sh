#!/usr/bin/env bash
# Start-up, CLI latency, idle memory and idle CPU of whole Leasehold processes, each next to a
# reference measured in the same run (benchmarks/JOURNAL.md, "Start-up, CLI and footprint").
#
#   scripts/measure-startup.sh            # RUNS=7 IDLE_SECONDS=30 CPU_SECONDS=60 by default
#   BEFORE=/path/to/other/checkout scripts/measure-startup.sh
#
# With BEFORE (a checkout of another build, packaged the same way), that build's launcher is
# measured too, in the same rounds: a before/after in one run, beside the same reference.
#
# Run from anywhere after `mvn -B -ntp -q package -DskipTests` (which makes app/target/leasehold.jar
# and its class-data archive). Everything it writes goes to a fresh temporary directory (removed at
# the end; KEEP=1 keeps it); the repository's data/ is never touched. Every daemon it starts is
# stopped by its own pid; a daemon that does not log `started:` within START_TIMEOUT seconds is
# reported as failed, with its log.
#
# Measured, RUNS times each, interleaved round by round so load drift hits every kind alike:
#   hello           a bare JVM printing "hello" (java -cp DIR Hello): the reference
#   java -jar / bin/leasehold, each:
#     --version, validate, status      whole process, launch to exit
#     status, daemon running           status while a daemon of the same file runs (its admin
#                                      endpoint on a loopback port), launch to exit
#     run (new store)                  launch to the `started:` line, H2 file created (Flyway migrates)
#     run (store exists)               the same on the file the previous start left (schema current)
# Then one daemon at a time, idle:
#   idle JVM        a bare JVM sleeping: the memory reference
#   3 jobs          examples/quickstart.yaml, VmRSS after IDLE_SECONDS
#   1,000 jobs      1,000 cron jobs none of which is due, VmRSS and CPU (utime+stime from
#                   /proc/PID/stat) over CPU_SECONDS after the first IDLE_SECONDS
# Prints a Markdown report (also written to target/measure/startup.md) with `uptime` before and after.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

RUNS=${RUNS:-7}
IDLE_SECONDS=${IDLE_SECONDS:-30}
CPU_SECONDS=${CPU_SECONDS:-60}
START_TIMEOUT=${START_TIMEOUT:-120}
JAR=$root/app/target/leasehold.jar
LAUNCHER=$root/bin/leasehold
BEFORE=${BEFORE:-}
KINDS="jar launcher"
if [ -n "$BEFORE" ]; then
  [ -f "$BEFORE/app/target/leasehold.jar" ] && [ -x "$BEFORE/bin/leasehold" ] \
    || { echo "BEFORE=$BEFORE: no packaged build there" >&2; exit 2; }
  KINDS="jar launcher before"
fi
TICKS=$(getconf CLK_TCK)

[ -f "$JAR" ] || { echo "no $JAR: run mvn -B -ntp -q package -DskipTests first" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/leasehold-measure.XXXXXX")
pids=()
cleanup() {
  for pid in "${pids[@]:-}"; do
    [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null || true
  done
  if [ "${KEEP:-0}" = 1 ]; then echo "kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
load() { cut -d' ' -f1-3 /proc/loadavg; }

# --- references: a bare JVM -------------------------------------------------------------------
cat > "$work/Hello.java" <<'EOF'
public class Hello {
  public static void main(String[] args) throws InterruptedException {
    System.out.println("hello");
    if (args.length > 0) Thread.sleep(Long.parseLong(args[0]) * 1000);
  }
}
EOF
javac -d "$work" "$work/Hello.java"

# a config like examples/quickstart.yaml with its H2 file in $work/$1
quickstart() {
  sed "s#jdbc:h2:file:./data/quickstart#jdbc:h2:file:$work/$1/store#" examples/quickstart.yaml \
    > "$work/$1.yaml"
  echo "$work/$1.yaml"
}
# the same with an admin endpoint on a free loopback port
quickstart_admin() {
  local port
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  quickstart "$1" > /dev/null
  printf 'admin:\n  listen: 127.0.0.1:%s\n' "$port" >> "$work/$1.yaml"
  echo "$work/$1.yaml"
}
# 1,000 jobs, none due while we watch (yearly, 1 January 00:00)
thousand() {
  {
    echo "node: idle"
    echo "store: {type: h2, url: \"jdbc:h2:file:$work/thousand/store\"}"
    echo "jobs:"
    for i in $(seq 1 1000); do
      echo "  - {name: job-$i, cron: \"$((i % 60)) 0 1 1 *\", command: [\"true\"]}"
    done
  } > "$work/thousand.yaml"
  echo "$work/thousand.yaml"
}

# leasehold HOW ARGS...: HOW is "jar" (java -jar), "launcher" (bin/leasehold) or "before" (the
# launcher of $BEFORE)
leasehold() {
  local how=$1
  shift
  case $how in
    jar) java -jar "$JAR" "$@" ;;
    launcher) "$LAUNCHER" "$@" ;;
    before) "$BEFORE/bin/leasehold" "$@" ;;
  esac
}

# whole process: launch to exit; prints ms
timed() {
  local start end
  start=$(now_ms)
  "$@" > "$work/out.txt" 2>&1 || { echo "FAILED: $*" >&2; cat "$work/out.txt" >&2; echo -1; return; }
  end=$(now_ms)
  echo $((end - start))
}

# starts a daemon in the background, sets $daemon_pid and $daemon_log
start_daemon() {
  local how=$1 config=$2 name=$3
  daemon_log=$work/$name.log
  : > "$daemon_log"
  # a simple command in the background: $! is the JVM itself (the launcher execs java)
  case $how in
    jar) java -jar "$JAR" run --config "$config" > "$daemon_log" 2>&1 & ;;
    launcher) "$LAUNCHER" run --config "$config" > "$daemon_log" 2>&1 & ;;
    before) "$BEFORE/bin/leasehold" run --config "$config" > "$daemon_log" 2>&1 & ;;
  esac
  daemon_pid=$!
  pids+=("$daemon_pid")
}

stop_daemon() {
  kill -TERM "$daemon_pid" 2>/dev/null || true
  local deadline=$(( $(now_ms) + 30000 ))
  while kill -0 "$daemon_pid" 2>/dev/null && [ "$(now_ms)" -lt "$deadline" ]; do sleep 0.05; done
  kill -KILL "$daemon_pid" 2>/dev/null || true
  wait "$daemon_pid" 2>/dev/null || true
}

# waits for the daemon's `started:` line; on failure or timeout reports it, stops the daemon and
# returns 1
await_started() {
  local how=$1 name=$2 deadline=$3
  while ! grep -q 'started:' "$daemon_log"; do
    if ! kill -0 "$daemon_pid" 2>/dev/null || [ "$(now_ms)" -gt "$deadline" ]; then
      echo "start-up FAILED ($how $name), log:" >&2
      tail -20 "$daemon_log" >&2
      stop_daemon
      return 1
    fi
    sleep 0.02
  done
}

# launch to the `started:` line (its own timestamp); prints ms, or -1 on failure/timeout
started_after() {
  local how=$1 config=$2 name=$3 start line stamp
  start=$(now_ms)
  start_daemon "$how" "$config" "$name"
  await_started "$how" "$name" $((start + START_TIMEOUT * 1000)) || { echo -1; return; }
  line=$(grep -m1 'started:' "$daemon_log")
  stamp=$(date -d "$(cut -c1-23 <<< "$line")" +%s%3N)
  stop_daemon
  echo $((stamp - start))
}

# status while a daemon of the same file runs (called in $(...): the daemon lives in that
# subshell); prints ms, or -1
status_beside_daemon() {
  local how=$1 config=$2 name=$3 took
  local deadline=$(( $(now_ms) + START_TIMEOUT * 1000 ))
  start_daemon "$how" "$config" "$name"
  await_started "$how" "$name" "$deadline" || { echo -1; return; }
  took=$(timed leasehold "$how" status --config "$config")
  stop_daemon
  echo "$took"
}

declare -A samples
add() { samples[$1]="${samples[$1]:-} $2"; }
# the median of the successful samples (a failure is recorded as -1 and counted apart)
median() {
  tr ' ' '\n' <<< "${samples[$1]:-}" | grep -v '^$' | grep -v '^-' | sort -n \
    | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else print int((v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}

echo "measuring: RUNS=$RUNS, $(nproc) cores, load $(load)" >&2
load_before=$(uptime)
for run in $(seq 1 "$RUNS"); do
  add hello "$(timed java -cp "$work" Hello)"
  for how in $KINDS; do
    qs=$(quickstart "qs-$how-$run")
    add "$how version" "$(timed leasehold "$how" --version)"
    add "$how validate" "$(timed leasehold "$how" validate --config "$qs")"
    add "$how new" "$(started_after "$how" "$qs" "qs-$how-$run-new")"
    add "$how existing" "$(started_after "$how" "$qs" "qs-$how-$run-again")"
    add "$how status" "$(timed leasehold "$how" status --config "$qs")"
    qa=$(quickstart_admin "qa-$how-$run")
    add "$how status-daemon" "$(status_beside_daemon "$how" "$qa" "qa-$how-$run")"
  done
  echo "run $run of $RUNS done, load $(load)" >&2
done

# --- memory and idle CPU: one process at a time -----------------------------------------------
rss_kb() { awk '/^VmRSS/ { print $2 }' "/proc/$1/status"; }
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
java -cp "$work" Hello $((IDLE_SECONDS + 5)) > /dev/null &
hello_pid=$!
pids+=("$hello_pid")
sleep "$IDLE_SECONDS"
idle_jvm_kb=$(rss_kb "$hello_pid")
kill "$hello_pid" 2>/dev/null || true
wait "$hello_pid" 2>/dev/null || true

declare -A rss cpu
for how in $KINDS; do
  start_daemon "$how" "$(quickstart "idle-$how")" "idle-$how"
  sleep "$IDLE_SECONDS"
  rss[$how 3]=$(rss_kb "$daemon_pid")
  stop_daemon

  start_daemon "$how" "$(thousand)" "thousand-$how"
  sleep "$IDLE_SECONDS"
  if grep -q 'started:' "$daemon_log"; then
    before=$(cpu_ticks "$daemon_pid")
    sleep "$CPU_SECONDS"
    after=$(cpu_ticks "$daemon_pid")
    rss[$how 1000]=$(rss_kb "$daemon_pid")
    cpu[$how]=$(awk -v t="$((after - before))" -v hz="$TICKS" -v s="$CPU_SECONDS" \
      'BEGIN { printf "%.2f", 100 * t / hz / s }')
  else
    echo "1,000 jobs: not started after $IDLE_SECONDS s; log:" >&2
    tail -5 "$daemon_log" >&2
    rss[$how 1000]=-
    cpu[$how]=-
  fi
  stop_daemon
  rm -rf "$work/thousand"
done
load_after=$(uptime)

# --- report -----------------------------------------------------------------------------------
hello=$(median hello)
ratio() { awk -v a="$1" -v b="$hello" 'BEGIN { if (a < 0 || a == "-") print "-"; else printf "%.1f ×", a / b }'; }
mb() { awk -v k="$1" 'BEGIN { if (k == "-") print "-"; else printf "%.0f MB", k / 1024 }'; }
mkdir -p target/measure
{
  echo "Machine: $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)," \
    "$(java -version 2>&1 | head -1)."
  echo "Load before: \`$load_before\`; after: \`$load_after\`."
  echo
  echo "Medians of $RUNS interleaved runs (ms). Reference: a bare JVM's hello world, **$hello ms**."
  echo
  if [ -n "$BEFORE" ]; then
    echo "| what | \`java -jar\` | × hello | \`bin/leasehold\` before | × hello | \`bin/leasehold\` | × hello |"
    echo "|---|--:|--:|--:|--:|--:|--:|"
  else
    echo "| what | \`java -jar\` | × hello | \`bin/leasehold\` | × hello |"
    echo "|---|--:|--:|--:|--:|"
  fi
  for kind in "version:--version" "validate:validate" "status:status" \
    "status-daemon:status, a daemon of the file running" \
    "new:launch → \`started:\`, new H2 file" "existing:launch → \`started:\`, H2 file exists"; do
    key=${kind%%:*} label=${kind#*:}
    j=$(median "jar $key") l=$(median "launcher $key")
    if [ -n "$BEFORE" ]; then
      b=$(median "before $key")
      echo "| $label | $j | $(ratio "$j") | $b | $(ratio "$b") | $l | $(ratio "$l") |"
    else
      echo "| $label | $j | $(ratio "$j") | $l | $(ratio "$l") |"
    fi
  done
  echo
  echo "Idle ($IDLE_SECONDS s after launch; CPU over the next $CPU_SECONDS s). Reference: a bare JVM" \
    "sleeping, VmRSS **$(mb "$idle_jvm_kb")**."
  echo
  if [ -n "$BEFORE" ]; then
    echo "| what | \`java -jar\` | \`bin/leasehold\` before | \`bin/leasehold\` |"
    echo "|---|--:|--:|--:|"
    echo "| VmRSS, 3 jobs (quickstart) | $(mb "${rss[jar 3]}") | $(mb "${rss[before 3]}") | $(mb "${rss[launcher 3]}") |"
    echo "| VmRSS, 1,000 idle jobs | $(mb "${rss[jar 1000]}") | $(mb "${rss[before 1000]}") | $(mb "${rss[launcher 1000]}") |"
    echo "| CPU, 1,000 idle jobs (% of one core) | ${cpu[jar]} % | ${cpu[before]} % | ${cpu[launcher]} % |"
  else
    echo "| what | \`java -jar\` | \`bin/leasehold\` |"
    echo "|---|--:|--:|"
    echo "| VmRSS, 3 jobs (quickstart) | $(mb "${rss[jar 3]}") | $(mb "${rss[launcher 3]}") |"
    echo "| VmRSS, 1,000 idle jobs | $(mb "${rss[jar 1000]}") | $(mb "${rss[launcher 1000]}") |"
    echo "| CPU, 1,000 idle jobs (% of one core) | ${cpu[jar]} % | ${cpu[launcher]} % |"
  fi
  echo
  echo "Every sample (ms; -1: the command failed or \`started:\` never came, see the script's stderr):"
  echo
  echo "- hello:${samples[hello]}"
  for how in $KINDS; do
    for key in version validate status status-daemon new existing; do
      echo "- $how $key:${samples[$how $key]:-}"
    done
  done
} | tee target/measure/startup.md
