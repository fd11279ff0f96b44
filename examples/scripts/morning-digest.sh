#!/bin/sh
# 06:30 morning health digest: yesterday's steps, sleep and resting heart rate per person.
set -eu
data="${FAMILY_DATA:-examples/family-data}/health.csv"
echo "Good morning! Health digest for firing $LEASEHOLD_FIRE_TIME (fence $LEASEHOLD_FENCE, node $LEASEHOLD_NODE)"
latest=$(tail -n +2 "$data" | cut -d, -f1 | sort | tail -n 1)
tail -n +2 "$data" | awk -F, -v day="$latest" '$1 == day {
  printf "  %-8s %6d steps, %4.1f h sleep, resting HR %d\n", $2, $3, $4, $5
  if ($3 < 5000) low = low " " $2
} END { if (low != "") print "  Nudge for a walk today:" low }'
