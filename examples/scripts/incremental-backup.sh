#!/bin/sh
# 02:00 incremental backup of BACKUP_SOURCE into BACKUP_DIR: rsync with hard links
# against the previous snapshot (tar when rsync is missing). Runs on one gateway only,
# so two backups never write the same volume at once.
set -eu
src="${BACKUP_SOURCE:-examples/family-data}"
dest="${BACKUP_DIR:-./data/backups}"
stamp=$(echo "$LEASEHOLD_FIRE_TIME" | tr -d ':' | cut -c1-17)
mkdir -p "$dest"
target="$dest/$stamp-fence$LEASEHOLD_FENCE"
if command -v rsync >/dev/null 2>&1; then
  if [ -d "$dest/latest" ]; then
    rsync -a --delete --link-dest="$(cd "$dest/latest" && pwd)" "$src/" "$target/"
  else
    rsync -a "$src/" "$target/"
  fi
  ln -sfn "$(basename "$target")" "$dest/latest"
else
  tar -czf "$target.tar.gz" -C "$src" .
fi
echo "backup of $src done: $target ($(du -sk "$target"* | tail -n 1 | cut -f1) KiB)"
