#!/usr/bin/env python3
"""Prints, as JSON, the environment `sam local invoke --env-vars FILE` gives each function
of TEMPLATE, as the pinned SAM CLI computes it (its own code, no Docker): only the
function's template variables, each with FILE's value or the template's as SAM resolves
it. SAM's own AWS_* additions (credentials, region, function name, memory, ...) are left
out: they come from the caller's session, not from the template or the file.

    .tools/venv/bin/python scripts/sam-env.py [TEMPLATE [FILE]]

tests/suites/template_drift/sam_env.rs compares it with local::sam_env, the Rust
reading of the same rules that the tests and tools/tests/sam_local.rs use.
"""

import json
import logging
import os
import sys

os.environ.setdefault("SAM_CLI_TELEMETRY", "0")
logging.disable(logging.CRITICAL)

from samcli.commands.local.lib.local_lambda import LocalLambdaRunner  # noqa: E402
from samcli.lib.providers.sam_function_provider import SamFunctionProvider  # noqa: E402
from samcli.lib.providers.sam_stack_provider import SamLocalStackProvider  # noqa: E402


def main():
    template = sys.argv[1] if len(sys.argv) > 1 else "template.yaml"
    env_file = sys.argv[2] if len(sys.argv) > 2 else "local/sam-env.json"
    with open(env_file, encoding="utf-8") as f:
        overrides = json.load(f)
    stacks, _ = SamLocalStackProvider.get_stacks(template, parameter_overrides={})
    functions = SamFunctionProvider(stacks)
    runner = LocalLambdaRunner(
        local_runtime=None,
        function_provider=functions,
        cwd=".",
        real_path=".",
        env_vars_values=overrides,
    )
    out = {}
    for function in functions.get_all():
        variables = runner._make_env_vars(function)  # pylint: disable=protected-access
        declared = set((function.environment or {}).get("Variables", {}))
        out[function.name] = {k: v for k, v in variables.resolve().items() if k in declared}
    json.dump(out, sys.stdout, indent=2, sort_keys=True)
    print()


if __name__ == "__main__":
    main()
