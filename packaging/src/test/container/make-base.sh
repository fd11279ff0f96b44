#!/usr/bin/env bash
# Makes the container base image the tests build Leasehold's image from, without a registry:
# Debian bookworm (debootstrap, minbase) with OpenJDK 17's headless JRE, imported into the local
# podman store as $1. It stands in for the public eclipse-temurin:17-jre base (a Debian-family
# system with a Java 17 runtime and apt-get), which cannot be pulled on a machine without a
# registry. Takes a few minutes; the tests make it only when the image is missing.
set -euo pipefail
image=${1:?image name}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
work=$(mktemp -d /var/tmp/leasehold-base-XXXXXX)
trap 'rm -rf "$work"' EXIT
debootstrap --variant=minbase --include=openjdk-17-jre-headless,ca-certificates \
  bookworm "$work/rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 \
  || { tail -30 "$work/debootstrap.log" >&2; exit 1; }
rm -rf "$work"/rootfs/var/cache/apt/archives/*.deb "$work"/rootfs/var/cache/apt/*.bin \
  "$work"/rootfs/var/lib/apt/lists/*
tar -C "$work/rootfs" -c . | podman import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'CMD ["/bin/bash"]' - "$image"
