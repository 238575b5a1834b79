#!/usr/bin/env python3
"""Renders template.yaml's mapping templates with a real Velocity engine and checks them.

The heartbeat route has no function: API Gateway renders its request template (Velocity)
into a DynamoDB UpdateItem, and its integration response templates into the frame sent
back. The ping route's MOCK request template only selects status 200 (`mockRoutes`). This renders the exact text of those templates, read from template.yaml, with
Airspeed (a Python Velocity engine, the one LocalStack renders API Gateway templates
with; pinned in scripts/lib.sh) on every case of tests/mapping-templates/cases.json, and
fails on any rendering that differs from the case's expected one. The local stack's own
renderer (local/src/integration/velocity) is held to the same cases by its unit tests,
so the two engines agree on them.

What API Gateway adds to Velocity is modelled here as its documentation describes it:
`$input.json(path)` (the JSON text at a JSONPath), `$input.path(path)` (the value),
`$util.escapeJavaScript`, `$context`, and on strings Java's `String` methods
(`matches` is a whole-string match, as in Java).

    .tools/venv/bin/python scripts/check-mapping-templates.py   (scripts/test.sh runs it)
"""

import json
import pathlib
import re
import sys

import airspeed
import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent
CASES = ROOT / "tests" / "mapping-templates" / "cases.json"


class CfnLoader(yaml.SafeLoader):
    """YAML with CloudFormation's short-form tags, kept as their long form."""


def _tagged(loader, suffix, node):
    if isinstance(node, yaml.ScalarNode):
        value = loader.construct_scalar(node)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)
    return {"Ref" if suffix == "Ref" else f"Fn::{suffix}": value}


CfnLoader.add_multi_constructor("!", _tagged)


def substitute(text, values):
    """Fn::Sub with the local values; a `${Name}` with no value is an error."""

    def one(match):
        name = match.group(1)
        if name not in values:
            raise SystemExit(f"the template names ${{{name}}}, which the cases give no value")
        return values[name]

    return re.sub(r"\$\{([A-Za-z0-9_.:]+)\}", one, text)


def route_templates(template, route_key, values):
    """The request template and {response key: template} of the route's integration."""
    resources = template["Resources"]
    route = next(
        r for r in resources.values()
        if r["Type"] == "AWS::ApiGatewayV2::Route" and r["Properties"]["RouteKey"] == route_key
    )
    target = route["Properties"]["Target"]["Fn::Sub"]
    integration_id = re.fullmatch(r"integrations/\$\{(\w+)\}", target).group(1)
    request = resources[integration_id]["Properties"]["RequestTemplates"]["$default"]
    request = substitute(request["Fn::Sub"], values) if isinstance(request, dict) else request
    responses = {
        r["Properties"]["IntegrationResponseKey"]: r["Properties"]["ResponseTemplates"]["$default"]
        for r in resources.values()
        if r["Type"] == "AWS::ApiGatewayV2::IntegrationResponse"
        and r["Properties"]["IntegrationId"] == {"Ref": integration_id}
    }
    return request, responses


def json_path(root, path):
    if not path.startswith("$"):
        raise ValueError(f"JSONPath {path!r} does not start with $")
    current = root
    for part in [p for p in path[1:].split(".") if p]:
        if not isinstance(current, dict) or part not in current:
            return None
        current = current[part]
    return current


class Input:
    def __init__(self, payload):
        self.payload = payload

    def json(self, path):
        found = json_path(self.payload, path)
        return None if found is None else json.dumps(found, separators=(",", ":"), ensure_ascii=False)

    def path(self, path):
        return json_path(self.payload, path)


def escape_java_script(text):
    """Apache Commons Lang's escapeJavaScript, which API Gateway's $util uses."""
    out = []
    named = {"\b": "\\b", "\n": "\\n", "\t": "\\t", "\f": "\\f", "\r": "\\r"}
    for c in str(text):
        if c in "'\"\\/":
            out.append("\\" + c)
        elif c in named:
            out.append(named[c])
        elif " " <= c <= "~":
            out.append(c)
        else:
            data = c.encode("utf-16-be")
            for i in range(0, len(data), 2):
                out.append("\\u%04X" % int.from_bytes(data[i:i + 2], "big"))
    return "".join(out)


class Util:
    def escapeJavaScript(self, text):  # noqa: N802 (API Gateway's name)
        return escape_java_script(text)


# Java's String methods, as API Gateway's (Java) Velocity has them on strings.
airspeed.__additional_methods__[str].update({
    "matches": lambda self, pattern: re.fullmatch(pattern, self) is not None,
    "startsWith": lambda self, prefix: self.startswith(prefix),
    "endsWith": lambda self, suffix: self.endswith(suffix),
    "contains": lambda self, part: part in self,
    "length": lambda self: len(self.encode("utf-16-le")) // 2,
})


def render(text, payload, context):
    namespace = {"input": Input(payload), "util": Util(), "context": context}
    return airspeed.Template(text).merge(namespace)


def as_value(rendered):
    """A rendering compared as JSON (whitespace does not matter); empty stays ""."""
    text = rendered.strip()
    return "" if text == "" else json.loads(text)


def main():
    template = yaml.load((ROOT / "template.yaml").read_text(), Loader=CfnLoader)
    cases = json.loads(CASES.read_text())
    request_template, responses = route_templates(template, cases["route"], cases["values"])
    failures, checked = [], 0
    for case in cases["requests"]:
        context = {**cases["context"], **case.get("context", {})}
        frame = case["frame"]
        payload = json.loads(frame) if isinstance(frame, str) else frame
        try:
            got = as_value(render(request_template, payload, context))
        except Exception as error:  # noqa: BLE001 (report every case)
            got = f"did not render: {error!r}"
        checked += 1
        if got != case["expected"]:
            failures.append((f"request: {case['name']}", case["expected"], got))
    for case in cases["responses"]:
        context = {**cases["context"], **case.get("context", {})}
        if case["key"] not in responses:
            failures.append((f"response: {case['name']}", case["key"], "no such integration response"))
            continue
        try:
            got = as_value(render(responses[case["key"]], case["body"], context))
        except Exception as error:  # noqa: BLE001
            got = f"did not render: {error!r}"
        checked += 1
        if got != case["expected"]:
            failures.append((f"response: {case['name']}", case["expected"], got))
    # One-way MOCK routes (`ping`): the request template only selects the status.
    for route_key, mock_cases in cases.get("mockRoutes", {}).items():
        mock_request, mock_responses = route_templates(template, route_key, {})
        if mock_responses:
            failures.append((f"{route_key}: integration responses", {}, sorted(mock_responses)))
        for case in mock_cases:
            try:
                got = as_value(render(mock_request, case["frame"], cases["context"]))
            except Exception as error:  # noqa: BLE001
                got = f"did not render: {error!r}"
            checked += 1
            if got != case["expected"]:
                failures.append((f"{route_key}: {case['name']}", case["expected"], got))
    for name, expected, got in failures:
        print(f"FAILED {name}\n  expected: {json.dumps(expected)}\n  got:      {json.dumps(got)}")
    print(f"mapping templates (airspeed {airspeed_version()}): "
          f"{checked - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


def airspeed_version():
    try:
        from importlib.metadata import version
        return version("airspeed")
    except Exception:  # noqa: BLE001
        return "?"


if __name__ == "__main__":
    sys.exit(main())
