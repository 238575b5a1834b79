"""Evaluates template.yaml's `Rules` for sets of parameter values, as CloudFormation does
before it creates or updates the stack, and checks each set is refused (or accepted) by
the rules named. cfn-lint and `sam validate` check the rules' syntax, not what they
decide: this is the test that AuthMode=header cannot reach Production, nor any stage
unless AllowUnauthenticated=true says so.

Run by scripts/test.sh with the virtualenv's Python (cfn-lint's YAML loader reads the
short-form intrinsics):  .tools/venv/bin/python scripts/check-template-rules.py
"""

import re
import sys

from cfnlint.decode import cfn_yaml

TEMPLATE = sys.argv[1] if len(sys.argv) > 1 else "template.yaml"

# (what the case shows, parameter values, the rules that must refuse it: empty = accepted)
JWT = {"AuthMode": "jwt", "JwksUrl": "https://id.example/jwks.json",
       "JwtIssuer": "https://id.example", "JwtAudience": "game"}
QUEUE = {"GameSessionQueues": "eu-queue"}
FLEET = "arn:aws:gamelift:eu-west-1:111122223333:fleet/fleet-2222bbbb-33cc-44dd-55ee-6666ffff77aa"
HEADER = {"AuthMode": "header", "AllowUnauthenticated": "true"}
SECRET_PARAMETER = {"AuthMode": "jwt", "JwtHs256SecretParameter": "/game/Production/jwt-secret",
                    "JwtIssuer": "https://id.example", "JwtAudience": "game"}
CASES = [
    ("header mode is refused in Production, even allowed",
     {"Stage": "Production", **HEADER, **QUEUE}, {"HeaderAuthNotInProduction"}),
    ("header mode is refused in Production, not allowed either",
     {"Stage": "Production", "AuthMode": "header", **QUEUE},
     {"HeaderAuthNotInProduction", "HeaderAuthOnlyOnPurpose"}),
    ("JWT mode is accepted in Production",
     {"Stage": "Production", **JWT, **QUEUE}, set()),
    ("JWT mode with an HS256 secret in Parameter Store is accepted in Production",
     {"Stage": "Production", **SECRET_PARAMETER, **QUEUE}, set()),
    ("header mode is accepted in Development with AllowUnauthenticated=true",
     {"Stage": "Development", **HEADER, **QUEUE}, set()),
    ("header mode is accepted in Staging with AllowUnauthenticated=true",
     {"Stage": "Staging", **HEADER, **QUEUE}, set()),
    ("header mode is refused in Development without AllowUnauthenticated (its default)",
     {"Stage": "Development", "AuthMode": "header", **QUEUE}, {"HeaderAuthOnlyOnPurpose"}),
    ("header mode is refused in Staging with AllowUnauthenticated=false",
     {"Stage": "Staging", "AuthMode": "header", "AllowUnauthenticated": "false", **QUEUE},
     {"HeaderAuthOnlyOnPurpose"}),
    ("AllowUnauthenticated=true changes nothing in JWT mode",
     {"Stage": "Production", **JWT, "AllowUnauthenticated": "true", **QUEUE}, set()),
    ("JWT mode without a key, issuer or audience is refused",
     {"Stage": "Development", "AuthMode": "jwt", **QUEUE}, {"JwtNeedsAKey"}),
    ("JWT mode with both a JWKS and a secret parameter is refused",
     {"Stage": "Development", **JWT, "JwtHs256SecretParameter": "jwt-secret", **QUEUE},
     {"JwtNeedsAKey"}),
    ("no queue and no fleet is refused",
     {"Stage": "Development", **HEADER}, {"AGameSessionQueueIsNeeded"}),
    ("a fleet alone is enough (the stack creates the queue)",
     {"Stage": "Development", **HEADER, "FleetArns": FLEET}, set()),
    ("samconfig.toml's placeholder queue is refused",
     {"Stage": "Development", **HEADER, "GameSessionQueues": "REPLACE-ME"},
     {"NoPlaceholderLeft"}),
    ("samconfig.toml's placeholder issuer and audience are refused",
     {"Stage": "Production", **JWT, **QUEUE, "JwtIssuer": "REPLACE-ME", "JwtAudience": "REPLACE-ME"},
     {"NoPlaceholderLeft"}),
]

# (parameter, value, accepted?): the parameters' AllowedPattern, which CloudFormation checks
# before the rules (Java regular expressions; these patterns mean the same in Python's).
PATTERNS = [
    ("JwtHs256SecretParameter", "", True),
    ("JwtHs256SecretParameter", "jwt-secret", True),
    ("JwtHs256SecretParameter", "/gamelift-sockets/Production/jwt_hs256.secret", True),
    ("JwtHs256SecretParameter", "gamelift-sockets/jwt-secret", False),  # a path without its /
    ("JwtHs256SecretParameter", "arn:aws:ssm:eu-west-1:111122223333:parameter/jwt", False),
    ("JwtHs256SecretParameter", "/a//b", False),
    ("GameSessionQueues", "my-queue,other-queue", True),
]


def parameter_values(template, given):
    values = {}
    for name, spec in template["Parameters"].items():
        raw = given.get(name, spec.get("Default", ""))
        if spec["Type"].startswith("CommaDelimitedList") or spec["Type"].startswith("List<"):
            values[name] = [item.strip() for item in str(raw).split(",")]
        else:
            values[name] = str(raw)
    return values


def evaluate(node, values):
    if isinstance(node, dict) and len(node) == 1:
        (function, args), = node.items()
        if function == "Ref":
            return values[args]
        if function == "Fn::Equals":
            left, right = (evaluate(a, values) for a in args)
            return left == right
        if function == "Fn::Not":
            return not evaluate(args[0], values)
        if function == "Fn::Or":
            return any(evaluate(a, values) for a in args)
        if function == "Fn::And":
            return all(evaluate(a, values) for a in args)
        if function == "Fn::EachMemberEquals":
            members, value = (evaluate(a, values) for a in args)
            return all(member == value for member in members)
        if function == "Fn::Contains":
            members, value = (evaluate(a, values) for a in args)
            return value in members
        raise ValueError(f"this checker does not know {function}: teach it")
    return node


def refusing_rules(template, values):
    refused = set()
    for name, rule in template.get("Rules", {}).items():
        if "RuleCondition" in rule and not evaluate(rule["RuleCondition"], values):
            continue
        if not all(evaluate(a["Assert"], values) for a in rule["Assertions"]):
            refused.add(name)
    return refused


def main():
    template = cfn_yaml.load(TEMPLATE)
    failures = 0
    for title, given, expected in CASES:
        refused = refusing_rules(template, parameter_values(template, given))
        ok = refused == expected
        failures += not ok
        verdict = "ok" if ok else f"FAILED: refused by {sorted(refused) or 'nothing'}, expected {sorted(expected) or 'nothing'}"
        print(f"  {title}: {verdict}")
    for name, value, accepted in PATTERNS:
        pattern = template["Parameters"][name].get("AllowedPattern")
        ok = pattern is not None and (re.fullmatch(pattern, value) is not None) == accepted
        failures += not ok
        shown = value if len(value) < 40 else value[:37] + "..."
        print(f"  {name}={shown!r} {'accepted' if accepted else 'refused'} by its pattern: {'ok' if ok else 'FAILED'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
