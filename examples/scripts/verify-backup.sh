#!/bin/sh
# Runs after each 02:00 incremental backup that succeeded (after: incremental-backup), on any
# gateway, under that backup's firing: LEASEHOLD_FIRE_TIME is the backup's instant, so this finds
# the very snapshot it made, and LEASEHOLD_UPSTREAM_FENCE is the backup run's fence.
set -eu
dest="${BACKUP_DIR:-./data/backups}"
stamp=$(echo "$LEASEHOLD_FIRE_TIME" | tr -d ':' | cut -c1-17)
snapshot="$dest/$stamp-fence${LEASEHOLD_UPSTREAM_FENCE:-0}"
if [ -d "$snapshot" ]; then
  count=$(find "$snapshot" -type f | wc -l)
  echo "snapshot $snapshot holds $count files"
  [ "$count" -gt 0 ]
elif [ -f "$snapshot.tar.gz" ]; then
  tar -tzf "$snapshot.tar.gz" >/dev/null
  echo "archive $snapshot.tar.gz reads back"
else
  echo "no snapshot $snapshot" >&2
  exit 1
fi
