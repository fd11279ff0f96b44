#!/bin/sh
# 08:00 medication check-in reminder: who takes what this morning.
set -eu
data="${FAMILY_DATA:-examples/family-data}/medication.csv"
echo "Medication check-in ($LEASEHOLD_FIRE_TIME, fence $LEASEHOLD_FENCE):"
tail -n +2 "$data" | awk -F, '$4 == "08:00" { printf "  %-8s %s %s\n", $1, $2, $3 }'
echo "Reply 'taken' in the family chat when done."
