#!/usr/bin/env bash
# Lease-operation benchmarks (JMH): Leasehold next to ShedLock and the raw store round trip, on
# H2, MariaDB, PostgreSQL, Redis, Redlock (3 local redis-server processes) and the in-process
# Mongo wire server. See docs/performance.md, section "Lease operations (JMH)".
#
#   scripts/bench.sh [--full] [REGEX] [JMH ARGS...]
#
# REGEX selects benchmarks (default: all), e.g. 'RedisBench' or 'SqlBench.*lh_'.
# Quick run (default): 1 fork, 2 x 1 s warm-up, 3 x 2 s measurement. --full: 2 forks, 5 x 5 s, 5 x 10 s.
# Every benchmark runs with 1 thread; the lock-shaped ones again with 4 threads (a name each).
# Results: target/bench/threads-1.json, target/bench/threads-4.json, and a table on stdout.
# Needs the servers up (bash .ci/services.sh) and redis-server on the PATH for Redlock.
set -euo pipefail
cd "$(dirname "$0")/.."

timing=(-f 1 -wi 2 -w 1s -i 3 -r 2s)
if [[ "${1:-}" == "--full" ]]; then
  timing=(-f 2 -wi 5 -w 5s -i 5 -r 10s)
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
  java -cp "$cp" org.openjdk.jmh.Main "${timing[@]}" -bm sample -tu us \
    -jvmArgsAppend "-Xmx512m -Dlogback.configurationFile=benchmarks/src/main/resources/bench/logback-bench.xml" \
    "$@"
}

# one thread: everything selected
jmh "$filter" -t 1 -rf json -rff "$out/threads-1.json" "$@"
results=("$out/threads-1.json")
# four threads: the lock-shaped operations (claim alone, renew, PING, SELECT 1: one thread only)
rm -f "$out/threads-4.json"
if jmh "$filter" -t 4 -e 'lh_claim$|lh_renew|raw_ping|raw_select1' -rf json -rff "$out/threads-4.json" "$@"; then
  results+=("$out/threads-4.json")
else
  echo "(no 4-thread run: nothing lock-shaped selected, or it failed; see above)" >&2
fi

java -cp "$cp" dev.leasehold.bench.BenchTable "${results[@]}" | tee "$out/table.md"
