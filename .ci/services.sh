#!/usr/bin/env bash
# Makes sure the servers the tests need are up on this machine: Redis 6379, MariaDB 3306
# (root, no password, database `test`), PostgreSQL 5432 (trust, database `test`); and that the
# etcd and ZooKeeper binaries are installed (their tests start their own servers).
# Starts each one that is down; installs it with apt-get when it is missing. Idempotent.
set -euo pipefail

log() { echo "[services] $*"; }

wait_for() { # name, command
  local name=$1; shift
  for _ in $(seq 1 60); do
    if "$@" >/dev/null 2>&1; then log "$name is up"; return 0; fi
    sleep 1
  done
  log "$name did not come up"; return 1
}

apt_updated=
apt_install() {
  if [ -z "$apt_updated" ]; then
    DEBIAN_FRONTEND=noninteractive apt-get update -qq; apt_updated=1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

# --- Redis -----------------------------------------------------------------------------------
command -v redis-server >/dev/null || { log "installing redis-server"; apt_install redis-server redis-tools; }
command -v redis-cli >/dev/null || apt_install redis-tools
if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  log "starting Redis"
  mkdir -p /var/lib/redis /var/log/redis
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log
fi
wait_for Redis redis-cli -h 127.0.0.1 -p 6379 ping

# --- MariaDB ---------------------------------------------------------------------------------
fresh_mariadb=
if [ ! -x /usr/sbin/mariadbd ]; then
  log "installing mariadb-server"; apt_install mariadb-server mariadb-client; fresh_mariadb=1
fi
if ! mariadb-admin -h 127.0.0.1 -P 3306 -uroot ping >/dev/null 2>&1 \
   && ! mariadb-admin -uroot ping >/dev/null 2>&1; then
  log "starting MariaDB"
  mkdir -p /run/mysqld && chown mysql /run/mysqld
  start-stop-daemon --start --oknodo --background --chuid mysql --exec /usr/sbin/mariadbd
fi
wait_for MariaDB mariadb-admin -uroot ping
# a fresh apt install lets root in over the unix socket only: open TCP for root, no password
if ! mariadb -h 127.0.0.1 -P 3306 -uroot -e 'select 1' test >/dev/null 2>&1; then
  log "granting root over TCP and creating database test"
  mariadb -uroot -e "CREATE DATABASE IF NOT EXISTS test;
    CREATE USER IF NOT EXISTS 'root'@'127.0.0.1' IDENTIFIED BY '';
    GRANT ALL ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION;
    CREATE USER IF NOT EXISTS 'root'@'localhost';
    ALTER USER 'root'@'localhost' IDENTIFIED VIA unix_socket OR mysql_native_password USING PASSWORD('');
    FLUSH PRIVILEGES;" || true
fi
wait_for "MariaDB over TCP" mariadb -h 127.0.0.1 -P 3306 -uroot -e 'select 1' test

# --- PostgreSQL ------------------------------------------------------------------------------
if ! ls /etc/postgresql/*/main >/dev/null 2>&1; then
  log "installing postgresql"; apt_install postgresql postgresql-client
fi
pgver=$(ls /etc/postgresql | sort -V | tail -1)
if ! pg_isready -h 127.0.0.1 -p 5432 >/dev/null 2>&1; then
  log "starting PostgreSQL $pgver"
  pg_ctlcluster --skip-systemctl-redirect "$pgver" main start || true
fi
wait_for PostgreSQL pg_isready -h 127.0.0.1 -p 5432
if ! psql -h 127.0.0.1 -U postgres -d test -c 'select 1' >/dev/null 2>&1; then
  log "configuring trust auth on loopback and database test"
  hba=/etc/postgresql/$pgver/main/pg_hba.conf
  sed -i -E 's/^(host\s+all\s+all\s+(127\.0\.0\.1\/32|::1\/128)\s+)\S+/\1trust/' "$hba"
  su postgres -c "psql -qc 'SELECT pg_reload_conf()'" >/dev/null
  su postgres -c "createdb test" 2>/dev/null || true
fi
wait_for "PostgreSQL database test" psql -h 127.0.0.1 -U postgres -d test -c 'select 1'

# --- etcd and ZooKeeper ------------------------------------------------------------------------
# Installed only: the tests start their own servers (free loopback ports, temp dirs) from these
# binaries and stop them; a service the package may start on 2379 or 2181 is not used.
if ! command -v etcd >/dev/null || ! command -v etcdctl >/dev/null; then
  log "installing etcd-server and etcd-client"; apt_install etcd-server etcd-client
fi
if [ ! -r /usr/share/java/zookeeper.jar ] || [ ! -x /usr/share/zookeeper/bin/zkCli.sh ]; then
  log "installing zookeeper"; apt_install zookeeper
fi
log "etcd $(etcd --version 2>/dev/null | awk 'NR==1{print $3}') installed"
log "zookeeper $(dpkg-query -W -f='${Version}' zookeeper 2>/dev/null || echo '?') installed"

# --- tools the black-box tests use -------------------------------------------------------------
if ! ls /usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1 >/dev/null 2>&1 \
   && ! ls /usr/lib/*/faketime/libfaketime.so.1 >/dev/null 2>&1; then
  log "installing faketime"; apt_install faketime
fi
command -v setsid >/dev/null || apt_install util-linux
# the protocol model (scripts/check-model.sh, run by the docs module's ProtocolModelTest)
command -v spin >/dev/null || { log "installing spin"; apt_install spin; }
command -v gcc >/dev/null || { log "installing gcc"; apt_install gcc; }
# the status page is tested in a real headless browser
{ [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; } || {
  log "installing chromium and chromium-driver"; apt_install chromium chromium-driver; }
# the packaging module: the container image (podman with runc, podman-compose, and debootstrap for
# the local base image, since no registry may be reachable) and systemd-analyze for the unit file
for tool in podman:podman runc:runc podman-compose:podman-compose debootstrap:debootstrap \
            systemd-analyze:systemd; do
  command -v "${tool%%:*}" >/dev/null || { log "installing ${tool#*:}"; apt_install "${tool#*:}"; }
done
log "all services ready"
