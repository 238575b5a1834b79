#!/usr/bin/env bash
# The C# client (clients/csharp): compiles it with Mono's mcs at C# 7.2 (what Unity accepts;
# newer syntax fails the build), then runs its tests (clients/csharp/Tests~) on Mono: unit
# tests with a scripted socket, the generated types against protocol/schema.json, the Unity
# package's layout, and the client against the real local stack (built with cargo unless
# LOCAL_STACK_BIN names it). Installs Debian's Mono with apt-get when mcs or mono is missing.
#   scripts/test-csharp.sh                 every test
#   scripts/test-csharp.sh rollover        the scenarios whose "Suite: name" contains a word
#   scripts/test-csharp.sh --generate      rewrites clients/csharp/Runtime/Protocol.g.cs from protocol/schema.json
set -euo pipefail

# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$REPO_ROOT"

install_mono
CSHARP_DIR="$REPO_ROOT/clients/csharp"
BUILD_DIR="$CSHARP_DIR/.build" # hidden from Unity, ignored by git
mkdir -p "$BUILD_DIR"
MCS=(mcs -langversion:7.2 -warnaserror -nologo)

"${MCS[@]}" -out:"$BUILD_DIR/generate-protocol.exe" "$CSHARP_DIR/Runtime/Json.cs" "$CSHARP_DIR"/Generator~/*.cs
if [[ "${1:-}" == "--generate" ]]; then
    mono "$BUILD_DIR/generate-protocol.exe" protocol/schema.json "$CSHARP_DIR/Runtime/Protocol.g.cs"
    exit 0
fi

if [[ -z "${LOCAL_STACK_BIN:-}" ]]; then
    info "building the local stack (cargo build -p local --bin local)"
    cargo build --quiet -p local --bin local
    export LOCAL_STACK_BIN="${CARGO_TARGET_DIR:-$REPO_ROOT/target}/debug/local"
fi

info "compiling clients/csharp with $(mcs --version) at -langversion:7.2"
"${MCS[@]}" -target:library -out:"$BUILD_DIR/GameLiftSockets.dll" "$CSHARP_DIR"/Runtime/*.cs
"${MCS[@]}" -out:"$BUILD_DIR/tests.exe" -r:"$BUILD_DIR/GameLiftSockets.dll" \
    "$CSHARP_DIR"/Tests~/*.cs "$CSHARP_DIR/Generator~/ProtocolGenerator.cs"
export CSHARP_CLIENT_DIR="$CSHARP_DIR" CSHARP_BUILD_DIR="$BUILD_DIR" REPO_ROOT
(cd "$BUILD_DIR" && mono --debug tests.exe "$@")
