#!/usr/bin/env bash
# Throwaway OpenSSH servers on 127.0.0.1 for the remote-measurement tests and
# tools/bench-remote-measure: a host key, a client key and configs made in
# DIR, nothing outside it touched (sshd runs as root, which it needs to log a
# user in; the tests skip when not root).
#
#   sshd_fixture.sh start DIR NAME PORT   start host NAME on PORT; DIR/ssh_config gets "Host NAME"
#   sshd_fixture.sh kill DIR NAME         SIGKILL NAME's sshd and every session under it (a dead host)
#   sshd_fixture.sh stop DIR              stop every host started in DIR
set -euo pipefail
command=$1 dir=$(realpath -m "$2")

kill_tree() {
  local child
  for child in $(pgrep -P "$1" || true); do kill_tree "$child"; done
  kill -9 "$1" 2>/dev/null || true
}

case "$command" in
  start)
    name=$3 port=$4
    mkdir -p "$dir" /run/sshd
    [[ -f $dir/client_key ]] || ssh-keygen -q -t ed25519 -N '' -f "$dir/client_key"
    [[ -f $dir/host_key ]] || ssh-keygen -q -t ed25519 -N '' -f "$dir/host_key"
    cp "$dir/client_key.pub" "$dir/authorized_keys"
    cat > "$dir/sshd_$name.conf" <<CONF
Port $port
ListenAddress 127.0.0.1
HostKey $dir/host_key
AuthorizedKeysFile $dir/authorized_keys
PidFile $dir/sshd_$name.pid
StrictModes no
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
PermitRootLogin prohibit-password
CONF
    cat >> "$dir/ssh_config" <<CONF
Host $name
  HostName 127.0.0.1
  Port $port
  User $(id -un)
  IdentityFile $dir/client_key
  IdentitiesOnly yes
  StrictHostKeyChecking no
  UserKnownHostsFile /dev/null
  LogLevel ERROR
CONF
    "$(command -v sshd || echo /usr/sbin/sshd)" -f "$dir/sshd_$name.conf" -E "$dir/sshd_$name.log"
    for _ in $(seq 50); do
      ssh -F "$dir/ssh_config" -o BatchMode=yes "$name" true 2>/dev/null && exit 0
      sleep 0.1
    done
    echo "sshd_fixture: host $name on port $port does not answer (see $dir/sshd_$name.log)" >&2
    exit 1
    ;;
  kill)
    kill_tree "$(cat "$dir/sshd_$3.pid")"
    ;;
  stop)
    for pid_file in "$dir"/sshd_*.pid; do
      [[ -f $pid_file ]] && kill_tree "$(cat "$pid_file")"
    done
    ;;
  *) echo "usage: sshd_fixture.sh start DIR NAME PORT | kill DIR NAME | stop DIR" >&2; exit 2 ;;
esac
