#!/bin/sh
# 02:00 incremental backup of BACKUP_SOURCE into BACKUP_DIR: rsync with hard links
# against the previous snapshot (tar when rsync is missing). Runs on one gateway only,
# so two backups never write the same volume at once.
#
# The volume is fenced as well: a run whose lease was lost while it ran (a gateway paused for
# minutes, cut off from the store) may still be copying when a newer run starts elsewhere.
# `leasehold fence check` records this run's $LEASEHOLD_FENCE in the volume's fence file under a
# file lock and exits 1 when a newer run already recorded a higher one; this run then stops
# before it writes (set -e). It checks again before moving `latest`, the write that matters.
# LEASEHOLD_CLI names the launcher when `leasehold` is not on the PATH.
set -eu
src="${BACKUP_SOURCE:-examples/family-data}"
dest="${BACKUP_DIR:-./data/backups}"
leasehold="${LEASEHOLD_CLI:-leasehold}"
stamp=$(echo "$LEASEHOLD_FIRE_TIME" | tr -d ':' | cut -c1-17)
mkdir -p "$dest"
"$leasehold" fence check --file "$dest/.leasehold-fence"
target="$dest/$stamp-fence$LEASEHOLD_FENCE"
if command -v rsync >/dev/null 2>&1; then
  if [ -d "$dest/latest" ]; then
    rsync -a --delete --link-dest="$(cd "$dest/latest" && pwd)" "$src/" "$target/"
  else
    rsync -a "$src/" "$target/"
  fi
  "$leasehold" fence check --file "$dest/.leasehold-fence"
  ln -sfn "$(basename "$target")" "$dest/latest"
else
  tar -czf "$target.tar.gz" -C "$src" .
fi
echo "backup of $src done: $target ($(du -sk "$target"* | tail -n 1 | cut -f1) KiB)"
