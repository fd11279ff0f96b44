#!/bin/sh
# Leasehold's notifier for the check-in: gets the event (failed, missed or recovered) as JSON
# on stdin and in LEASEHOLD_EVENT, once per firing from one gateway. Here it appends a line to
# an alerts file; replace the last line with your push service (ntfy, Pushover, a chat webhook),
# e.g.  curl -fsS -d "$summary" "https://ntfy.example/family-alerts"
set -eu
event=$(cat)
kind=$(printf '%s' "$event" | sed -n 's/.*"event":"\([a-z]*\)".*/\1/p')
firing=$(printf '%s' "$event" | sed -n 's/.*"firing":"\([^"]*\)".*/\1/p')
summary="medication check-in $kind (firing $firing)"
alerts="${FAMILY_ALERTS:-./data/alerts.log}"
mkdir -p "$(dirname "$alerts")"
printf '%s %s\n' "$summary" "$event" >> "$alerts"
