#!/usr/bin/env bash
# `sam build && sam deploy` with the pinned toolchain, no PATH set-up needed:
#   scripts/deploy.sh                       first time: builds, then `sam deploy --guided`
#   scripts/deploy.sh --no-guided [ARGS]    builds, then `sam deploy ARGS` (samconfig.toml)
#   scripts/deploy.sh --config-env production --no-guided
# Any other argument goes to `sam deploy` (e.g. --parameter-overrides ..., --region ...).
# It installs SAM CLI, cargo-lambda and zig into .tools/venv like scripts/sam-build.sh,
# and refuses a non-guided deploy whose parameters still hold samconfig.toml's
# placeholders (REPLACE-ME-...), which would deploy a stack pointing at nothing. A stack
# whose Stage is not Production is built with cargo's dev-deploy profile (faster to
# rebuild), a Production one with release (scripts/sam-build.sh --dev).
# Needs: cargo (rustup), Python 3.10+, AWS credentials in the shell.
set -euo pipefail

# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$REPO_ROOT"

guided=1
config_env="default"
deploy_args=()
overrides=""
while (($# > 0)); do
    case "$1" in
        --no-guided) guided=0 ;;
        --guided) guided=1 ;;
        --config-env)
            config_env="${2:?--config-env needs a value}"
            deploy_args+=("$1" "$2")
            shift
            ;;
        --config-env=*)
            config_env="${1#--config-env=}"
            deploy_args+=("$1")
            ;;
        --parameter-overrides)
            overrides="${2:?--parameter-overrides needs a value}"
            deploy_args+=("$1" "$2")
            shift
            ;;
        *) deploy_args+=("$1") ;;
    esac
    shift
done

# The parameters a non-guided deploy would use: --parameter-overrides replaces the whole
# parameter_overrides of the config environment.
if ((guided == 0)); then
    if [[ -z "$overrides" ]]; then
        overrides="$(samconfig_parameter_overrides "$config_env")"
    fi
    if [[ "$overrides" == *REPLACE-ME* ]]; then
        placeholders="$(grep -o '[A-Za-z0-9]*=[^ ]*REPLACE-ME[^ ]*' <<<"$overrides" | tr '\n' ' ')"
        die "the parameters of [$config_env] in samconfig.toml still hold placeholders: ${placeholders}
  Deploying them would create a stack that points at no real GameLift queue (or identity
  provider). Either run scripts/deploy.sh (guided: it asks for every value and can save
  them), or replace those values in samconfig.toml, or pass them:
    scripts/deploy.sh --no-guided --parameter-overrides \"Stage=Development AuthMode=header AllowUnauthenticated=true GameSessionQueues=<your queue>\""
    fi
fi

# A development stack builds with cargo's dev-deploy profile, production with release:
# decided by the Stage its parameters (or the config environment's) give.
if [[ -z "$overrides" ]]; then
    overrides="$(samconfig_parameter_overrides "$config_env")"
fi
build_args=()
if [[ " $overrides " != *" Stage=Production "* ]]; then
    build_args+=(--dev)
fi

require_command cargo "install Rust with rustup: https://rustup.rs"
"$REPO_ROOT/scripts/sam-build.sh" "${build_args[@]}"
export PATH="$VENV_DIR/bin:$PATH"
export SAM_CLI_TELEMETRY="${SAM_CLI_TELEMETRY:-0}"
if ((guided == 1)); then
    exec sam deploy --guided "${deploy_args[@]}"
fi
exec sam deploy "${deploy_args[@]}"
