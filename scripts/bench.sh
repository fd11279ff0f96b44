#!/usr/bin/env bash
# Lease-operation benchmarks (JMH): Leasehold next to ShedLock and the raw store round trip, on
# H2, MariaDB, PostgreSQL, Redis, Redlock (3 local redis-server processes) and the in-process
# Mongo wire server. See benchmarks/JOURNAL.md, section "Lease operations (JMH)".
#
#   scripts/bench.sh [--full] [REGEX] [JMH ARGS...]
#
# REGEX selects benchmarks (default: all), e.g. 'RedisBench' or 'SqlBench.*lh_'.
# Quick run (default): 1 fork, 2 x 1 s warm-up, 3 x 2 s measurement. --full: 2 forks, 5 x 5 s, 5 x 10 s.
# Every benchmark runs with 1 thread; the lock-shaped ones again with 4 threads (a name each).
# Then the bursts (1,000 names due at one instant; Leasehold's claimAll, Leasehold and ShedLock on a
# pool of 16 threads; single shot: -f 1 -wi 2 -i 5, --full: -f 2 -wi 5 -i 20).
# Results: target/bench/threads-1.json, threads-4.json, burst.json, load.txt (uptime before and
# after), tables on stdout (table.md, ratios.md) and the chart target/bench/claims.svg.
# Needs the servers up (bash .ci/services.sh) and redis-server on the PATH for Redlock.
set -euo pipefail
cd "$(dirname "$0")/.."

timing=(-f 1 -wi 2 -w 1s -i 3 -r 2s)
burst_timing=(-f 1 -wi 2 -i 5)
if [[ "${1:-}" == "--full" ]]; then
  timing=(-f 2 -wi 5 -w 5s -i 5 -r 10s)
  burst_timing=(-f 2 -wi 5 -i 20)
  shift
fi
filter="${1:-.*}"
shift || true

out=target/bench
mkdir -p "$out"
echo "building (the benchmarks module and the modules it needs)..." >&2
mvn -B -ntp -q -pl benchmarks -am test-compile dependency:build-classpath \
  -Dmdep.includeScope=runtime -Dmdep.outputFile=target/bench-classpath.txt >&2
cp="benchmarks/target/classes:$(cat benchmarks/target/bench-classpath.txt)"

jmh() {
  java -cp "$cp" org.openjdk.jmh.Main \
    -jvmArgsAppend "-Xmx512m -Dlogback.configurationFile=benchmarks/src/main/resources/bench/logback-bench.xml" \
    "$@"
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
echo "load before: $(uptime)" | tee "$out/load.txt" >&2
# one thread: everything selected but the bursts
jmh "$filter" "${timing[@]}" -bm sample -tu us -e 'burst_' -t 1 -rf json -rff "$out/threads-1.json" "$@"
results=("$out/threads-1.json")
# four threads: the lock-shaped operations (claim alone, renew, PING, SELECT 1: one thread only)
rm -f "$out/threads-4.json"
if jmh "$filter" "${timing[@]}" -bm sample -tu us -t 4 -e 'lh_claim$|lh_renew|raw_ping|raw_select1|burst_' \
  -rf json -rff "$out/threads-4.json" "$@"; then
  results+=("$out/threads-4.json")
else
  echo "(no 4-thread run: nothing lock-shaped selected, or it failed; see above)" >&2
fi

# bursts: 1,000 names due at one instant, one single-shot invocation per iteration (no ShedLock
# burst where ShedLock has no provider: Redlock, etcd, ZooKeeper)
rm -f "$out/burst.json"
if ! jmh "$filter" "${burst_timing[@]}" -bm ss -tu ms -t 1 -e '\.(lh|raw|shedlock)_|(Redlock|Etcd|ZooKeeper)Bench\.burst_shedlock' \
  -rf json -rff "$out/burst.json" "$@"; then
  echo "(no burst run: no burst selected, or it failed; see above)" >&2
fi
echo "load after: $(uptime)" | tee -a "$out/load.txt" >&2

java -cp "$cp" dev.leasehold.bench.BenchTable "${results[@]}" | tee "$out/table.md"
note="$(date -u '+%Y-%m-%d %H:%M') UTC, $(nproc) cores, load average before: $load_before, after: $(cut -d' ' -f1-3 /proc/loadavg)"
java -cp "$cp" dev.leasehold.bench.BenchChart "$out/threads-1.json" "$out/burst.json" \
  "$out/claims.svg" "$note" | tee "$out/ratios.md"
echo "chart: $out/claims.svg" >&2
