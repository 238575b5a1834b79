"""One policy document held to IAM's grammar and to the reference, for scripts/check-iam.py:
the Checker records a Finding (of a kind the check's docstring lists) for each problem of
a statement, a Lambda permission or a managed policy ARN, per scenario.
"""

import re

from iam_reference import globs_intersect

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
