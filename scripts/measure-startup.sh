#!/bin/sh
# Start-up time and idle memory of the daemon with examples/quickstart.yaml (docs/performance.md).
# Run from the repository root after `mvn -B -ntp -q package -DskipTests`.
set -eu
JAR=app/target/leasehold.jar
CONFIG=examples/quickstart.yaml
RUNS=${RUNS:-5}
IDLE_SECONDS=${IDLE_SECONDS:-30}
TICKS=$(getconf CLK_TCK)
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(java -version 2>&1 | head -1)"

i=1
while [ "$i" -le "$RUNS" ]; do
  rm -rf data/quickstart* /tmp/leasehold-start.log
  : > /tmp/leasehold-start.log
  start=$(date +%s%N)
  java -jar "$JAR" run --config "$CONFIG" >> /tmp/leasehold-start.log 2>&1 &
  pid=$!
  until grep -q "started:" /tmp/leasehold-start.log; do sleep 0.01; done
  end=$(date +%s%N)
  cpu=$(awk -v t="$TICKS" '{ printf "%d", ($14 + $15) * 1000 / t }' /proc/$pid/stat)
  echo "run $i: $(( (end - start) / 1000000 )) ms from launch to 'started:' (CPU ${cpu} ms);" \
    "$(grep -o 'started: .*' /tmp/leasehold-start.log)"
  kill -TERM "$pid"; wait "$pid" || true
  i=$((i + 1))
done

rm -rf data/quickstart*
java -jar "$JAR" run --config "$CONFIG" > /tmp/leasehold-idle.log 2>&1 &
pid=$!
sleep "$IDLE_SECONDS"
echo "after ${IDLE_SECONDS} s: $(grep VmRSS /proc/$pid/status), $(grep VmHWM /proc/$pid/status)," \
  "$(grep -c 'execution job' /tmp/leasehold-idle.log) executions so far"
kill -TERM "$pid"; wait "$pid" || true
