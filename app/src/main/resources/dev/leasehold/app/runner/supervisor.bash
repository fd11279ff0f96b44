#!/bin/bash
# Leasehold's run supervisor: runs one command job and stops it at its lease's deadline by
# itself, even when the daemon that started it is stalled (SIGSTOP, a long GC pause) or dead.
#
# usage: supervisor.bash STATUS_FILE GRACE_CS DEADLINE_CS PROGRAM [ARG...]
#
# The daemon starts it with setsid, so its pid is its process group's id. Its stdin is the
# daemon's pipe: each line is a new deadline, like DEADLINE_CS in hundredths of a second on the
# clock of /proc/uptime (monotonic, shared by every process of the machine: a line that arrives
# late still names the right instant). The job gets /dev/null as stdin and the supervisor's
# stdout and stderr.
#
# When the deadline passes without a newer line, or the pipe closes (the daemon died), the
# watcher (a subshell) writes "deadline" or "daemon-gone" to STATUS_FILE, sends SIGTERM to the
# whole process group at once and to the run's processes that left it (found by their
# LEASEHOLD_RUN_ID), and SIGKILL to whatever of them is left after GRACE_CS. The supervisor exits
# with the job's exit status (128 + the signal's number when a signal ended it).
#
# No fork while waiting: read -t waits, /proc/uptime is read by the shell itself.

status_file=$1
grace=$2
deadline=$3
shift 3

# REPLY := /proc/uptime in hundredths of a second
uptime_cs() {
  local up rest
  read -r up rest </proc/uptime
  REPLY=$((10#${up/./}))
}

# REPLY := a count of hundredths as seconds for read -t ("2.05")
seconds() {
  printf -v REPLY '%d.%02d' $(($1 / 100)) $(($1 % 100))
}

# every process marked with this run's id except the supervisor, its watcher and grep itself;
# with "outside", only those that left the process group (the group had its signal already: a
# second SIGTERM would run a shell's trap a second time)
marked() {
  local f pid stat fields
  MARKED=()
  [[ -n $LEASEHOLD_RUN_ID ]] || return 0
  while read -r f; do
    pid=${f#/proc/}
    pid=${pid%/environ}
    [[ $pid == "$$" || $pid == "$BASHPID" ]] && continue
    if [[ $1 == outside ]]; then
      read -r stat <"/proc/$pid/stat" 2>/dev/null || continue
      read -r -a fields <<<"${stat##*) }" # state ppid pgrp ...
      [[ ${fields[2]} == "$$" ]] && continue
    fi
    MARKED+=("$pid")
  done < <(grep -lszxF "LEASEHOLD_RUN_ID=$LEASEHOLD_RUN_ID" /proc/[0-9]*/environ)
}

stop() {
  local why=$1 end
  printf '%s\n' "$why" >"$status_file"
  kill -TERM -- "-$$" 2>/dev/null
  marked outside
  ((${#MARKED[@]})) && kill -TERM "${MARKED[@]}" 2>/dev/null
  # wait out the grace while the job runs; the pipe opened read-write never reaches EOF
  exec {pause}<>"/proc/$BASHPID/fd/0" || exec {pause}</dev/zero
  uptime_cs
  end=$((REPLY + grace))
  while kill -0 "$job" 2>/dev/null; do
    uptime_cs
    ((REPLY < end)) || break
    read -r -t 0.05 -u "$pause" _
  done
  marked
  ((${#MARKED[@]})) && kill -KILL "${MARKED[@]}" 2>/dev/null
  exit 0
}

watch() {
  local line rc
  while :; do
    uptime_cs
    ((REPLY < deadline)) || stop deadline
    seconds $((deadline - REPLY))
    if read -r -t "$REPLY" line; then
      [[ $line =~ ^[0-9]+$ ]] && deadline=$((10#$line))
    else
      rc=$?
      ((rc > 128)) || stop daemon-gone # EOF: the daemon's end of the pipe is closed
    fi
  done
}

# without job control an asynchronous command would get SIGINT and SIGQUIT ignored and /dev/null
# as stdin: the job gets the default dispositions back, the watcher the daemon's pipe
(
  trap - INT QUIT
  exec "$@"
) </dev/null &
job=$!
# the daemon stops a run by signalling its whole group: the supervisor stays to report the job's
# exit status. Ignored only now: the job, already forked, keeps the default disposition.
trap '' TERM
watch <&0 &
watcher=$!

# Read ends of the job's stdout and stderr pipes, held here: if the daemon dies, a write by the
# job (its TERM trap's, or the shell's own "Terminated") must not end it by SIGPIPE before its
# trap has run. Nobody reads them: once the pipe buffer (64 KiB) is full, a writer waits, as it
# would for a paused daemon, until the stop's SIGKILL.
exec {keep_out}<"/proc/$$/fd/1" {keep_err}<"/proc/$$/fd/2" 2>/dev/null

# the shell's "Killed"/"Terminated" notices would land in the job's output
{
  wait "$job"
  rc=$?
  if [[ -s $status_file ]]; then
    wait "$watcher" # it is stopping what is left of the run
  else
    kill -KILL "$watcher"
    wait "$watcher"
  fi
} 2>/dev/null
exit "$rc"
