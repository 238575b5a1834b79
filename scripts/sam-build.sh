#!/usr/bin/env bash
# `sam build` with the pinned toolchain: installs SAM CLI, cargo-lambda and zig (the
# cross-linker cargo-lambda uses for arm64) into .tools/venv once, puts them on PATH and
# runs `sam build` with any extra arguments (e.g. scripts/sam-build.sh --no-cached).
#   scripts/sam-build.sh --dev    the bootstraps with cargo's dev-deploy profile (no LTO,
#                                 incremental: a development stack's fast rebuild);
#                                 without it, release (production's profile).
# scripts/deploy.sh builds with it and then deploys (see docs/deploy.md).
# Needs: cargo (rustup), Python 3.10+.
set -euo pipefail

# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$REPO_ROOT"

sam_args=()
for arg in "$@"; do
    if [[ "$arg" == "--dev" ]]; then
        # The Makefile's bootstraps target reads it; sam passes its environment to make.
        export DEPLOY_PROFILE=dev-deploy
    else
        sam_args+=("$arg")
    fi
done

require_command cargo "install Rust with rustup: https://rustup.rs"
install_build_tools
# Add the arm64 target up front: cargo-lambda would add it itself, but with
# `parallel = true` six builds race to install it and most of them fail to.
if command -v rustup >/dev/null 2>&1; then
    rustup target add aarch64-unknown-linux-gnu >/dev/null
fi
export PATH="$VENV_DIR/bin:$PATH"
export SAM_CLI_TELEMETRY="${SAM_CLI_TELEMETRY:-0}"
echo "sam build: cargo profile ${DEPLOY_PROFILE:-release}" >&2
exec sam build "${sam_args[@]}"
