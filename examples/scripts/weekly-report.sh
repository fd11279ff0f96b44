#!/bin/sh
# Sunday 18:00 weekly nutrition-and-spending report, written to REPORT_DIR and printed.
set -eu
data="${FAMILY_DATA:-examples/family-data}"
out_dir="${REPORT_DIR:-./data/reports}"
mkdir -p "$out_dir"
report="$out_dir/week-$(echo "$LEASEHOLD_FIRE_TIME" | cut -c1-10).txt"
{
  echo "Weekly report for the week ending $LEASEHOLD_FIRE_TIME (fence $LEASEHOLD_FENCE)"
  tail -n +2 "$data/meals.csv" | awk -F, '{ kcal += $3; veg += $4; n++ }
    END { printf "  dinners: %d, average %.0f kcal, %.0f g vegetables\n", n, kcal / n, veg / n }'
  tail -n +2 "$data/spending.csv" | awk -F, '{ sum[$2] += $3; total += $3 }
    END { for (c in sum) printf "  %-11s %8.2f CNY\n", c, sum[c]; printf "  %-11s %8.2f CNY\n", "total", total }'
} > "$report"
cat "$report"
