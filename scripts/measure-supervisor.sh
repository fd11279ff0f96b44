#!/usr/bin/env bash
# What the command jobs' supervisor costs per run (benchmarks/JOURNAL.md, "Command runs under their
# supervisor"), next to the same runs without it, in one run:
#
#   scripts/measure-supervisor.sh            # RUNS=200 by default
#
# Run after `mvn -B -ntp -q package -DskipTests` (which makes app/target/leasehold.jar).
# 1. RUNS runs of `true` through the daemon's own CommandJobRunner (scripts/MeasureSupervisor.java),
#    unsupervised and supervised alternately, each timed from run() to its result.
# 2. The processes of one supervised run of `sleep 2` while it runs (by its LEASEHOLD_RUN_ID).
# Prints Markdown with `uptime` before and after.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-200}
jar=app/target/leasehold.jar
[[ -f $jar ]] || { echo "no $jar: run mvn -B -ntp -q package -DskipTests first" >&2; exit 2; }

echo "load before: $(uptime)"
echo
java -Dlogback.configurationFile=/dev/null -cp "$jar" scripts/MeasureSupervisor.java "$RUNS" 2>/dev/null \
  | grep -E '^(\||$)'
echo
echo "load after: $(uptime)"
