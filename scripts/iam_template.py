"""A template's IAM policy documents as a deployed stack would hold them, for
scripts/check-iam.py.

1. SAM's transform, offline: aws-sam-translator (the library behind CloudFormation's
   AWS::Serverless transform; the SAM CLI's pinned dependency) turns each function's
   `Policies`, event sources and EventInvokeConfig into the AWS::IAM::Role they deploy as,
   so the roles checked are the ones deployed, with what SAM adds itself.
2. For one set of parameter values (a scenario), the Conditions are evaluated and every
   intrinsic inside a policy document is resolved to the value CloudFormation would give it,
   with the shape AWS gives it: `!GetAtt Table.Arn` is a table ARN, `!Ref Queue` a queue
   URL (not an ARN), `!Ref Topic` a topic ARN, `${WebSocketApi}` an API id. Only the branch
   of an `!If` that its condition takes is resolved; check-iam.py runs several scenarios and
   fails if some branch of an `!If` in a policy was never taken by any of them.

A resource type or attribute not described below fails the check (`teach it`), rather than
being let through unresolved.
"""

import copy
import hashlib
import os
import re

PARTITION, REGION, ACCOUNT, STACK = "aws", "us-east-1", "123456789012", "gamelift-sockets-dev"

NO_VALUE = object()  # AWS::NoValue: the key or list item is dropped


class Unresolvable(Exception):
    pass


def load(path):
    from samtranslator.yaml_helper import yaml_parse  # reads !Ref, !Sub... as long forms

    with open(path, encoding="utf-8") as handle:
        return yaml_parse(handle.read())


def sam_transform(template, parameters):
    """The template after SAM's transform (unchanged if it declares none)."""
    transforms = template.get("Transform", [])
    transforms = transforms if isinstance(transforms, list) else [transforms]
    if "AWS::Serverless-2016-10-31" not in transforms:
        return copy.deepcopy(template)
    import logging

    from samtranslator.translator.transform import transform

    logging.getLogger("samtranslator").setLevel(logging.ERROR)  # "unpublished metrics" noise

    template = copy.deepcopy(template)
    for resource in template.get("Resources", {}).values():
        properties = resource.get("Properties") or {}
        # `sam package` uploads local code and writes its S3 location here; the transform
        # only accepts the latter.
        if resource.get("Type") == "AWS::Serverless::Function" and isinstance(properties.get("CodeUri"), str):
            if not properties["CodeUri"].startswith("s3://"):
                properties["CodeUri"] = "s3://bucket/" + properties["CodeUri"].strip("/")

    class NoManagedPolicies:  # policies named by ARN need no look-up; by name, IAM's API would
        def load(self):
            return {}

    from samtranslator.model.exceptions import InvalidDocumentException

    os.environ.setdefault("AWS_DEFAULT_REGION", REGION)  # the translator asks boto for one
    try:
        return transform(template, parameters, NoManagedPolicies())
    except InvalidDocumentException as error:
        raise Unresolvable(f"SAM's transform refuses the template: {error}") from error


def fake_id(logical_id, length=10):
    return hashlib.sha256(logical_id.encode()).hexdigest()[:length]


def generated_name(logical_id):
    """What CloudFormation names a resource that names itself nothing."""
    return f"{STACK}-{logical_id}-{fake_id(logical_id, 12).upper()}"


# Type: (the property naming it, what Ref gives, {attribute: what GetAtt gives}); in the
# shapes `{name}`, `{p}`, `{r}`, `{a}` are its name, the partition, region and account.
SHAPES = {
    "AWS::DynamoDB::Table": ("TableName", "{name}", {
        "Arn": "arn:{p}:dynamodb:{r}:{a}:table/{name}",
        "StreamArn": "arn:{p}:dynamodb:{r}:{a}:table/{name}/stream/2025-01-01T00:00:00.000"}),
    "AWS::SQS::Queue": ("QueueName", "https://sqs.{r}.amazonaws.com/{a}/{name}", {
        "Arn": "arn:{p}:sqs:{r}:{a}:{name}", "QueueName": "{name}",
        "QueueUrl": "https://sqs.{r}.amazonaws.com/{a}/{name}"}),
    "AWS::SNS::Topic": ("TopicName", "arn:{p}:sns:{r}:{a}:{name}", {
        "TopicArn": "arn:{p}:sns:{r}:{a}:{name}", "TopicName": "{name}"}),
    "AWS::Events::EventBus": ("Name", "{name}", {
        "Arn": "arn:{p}:events:{r}:{a}:event-bus/{name}", "Name": "{name}"}),
    # {bus} is "<bus name>/" for a rule on a custom bus, "" on the default one. Ref (whose
    # form differs on a custom bus) is left unknown: no policy here needs it.
    "AWS::Events::Rule": ("Name", None, {"Arn": "arn:{p}:events:{r}:{a}:rule/{bus}{name}"}),
    "AWS::Lambda::Function": ("FunctionName", "{name}", {
        "Arn": "arn:{p}:lambda:{r}:{a}:function:{name}"}),
    "AWS::IAM::Role": ("RoleName", "{name}", {"Arn": "arn:{p}:iam::{a}:role/{name}"}),
    "AWS::GameLift::GameSessionQueue": ("Name", "{name}", {
        "Arn": "arn:{p}:gamelift:{r}:{a}:gamesessionqueue/{name}", "Name": "{name}"}),
    "AWS::GameLift::MatchmakingConfiguration": ("Name", "{name}", {
        "Arn": "arn:{p}:gamelift:{r}:{a}:matchmakingconfiguration/{name}", "Name": "{name}"}),
    "AWS::GameLift::MatchmakingRuleSet": ("Name", "{name}", {
        "Arn": "arn:{p}:gamelift:{r}:{a}:matchmakingruleset/{name}", "Name": "{name}"}),
    "AWS::Logs::LogGroup": ("LogGroupName", "{name}", {
        "Arn": "arn:{p}:logs:{r}:{a}:log-group:{name}:*"}),
    # An API's physical id is its generated id (what execute-api ARNs start with).
    "AWS::ApiGatewayV2::Api": (None, "{id}", {
        "ApiId": "{id}", "ApiEndpoint": "wss://{id}.execute-api.{r}.amazonaws.com"}),
}


class Resolver:
    """Resolves intrinsics of one template for one scenario's parameter values."""

    def __init__(self, template, given):
        self.template = template
        self.resources = template.get("Resources", {})
        self.parameters = {}
        for name, spec in template.get("Parameters", {}).items():
            if name in given:
                raw = given[name]
            elif "Default" in spec:
                raw = spec["Default"]
            else:
                raise Unresolvable(f"parameter {name} has no default and the scenario gives none")
            kind = spec.get("Type", "String")
            if kind == "CommaDelimitedList" or kind.startswith("List<"):
                self.parameters[name] = [item.strip() for item in str(raw).split(",")]
            else:
                self.parameters[name] = str(raw)
        self.pseudo = {"AWS::Partition": PARTITION, "AWS::Region": REGION, "AWS::AccountId": ACCOUNT,
                       "AWS::StackName": STACK, "AWS::URLSuffix": "amazonaws.com",
                       "AWS::StackId": f"arn:{PARTITION}:cloudformation:{REGION}:{ACCOUNT}:stack/{STACK}/1",
                       "AWS::NotificationARNs": [], "AWS::NoValue": NO_VALUE}
        self._conditions = {}
        self.branches = []  # (path, condition, taken) for every Fn::If resolved

    # --- conditions ---------------------------------------------------------------------
    def condition(self, name):
        if name not in self._conditions:
            spec = self.template.get("Conditions", {}).get(name)
            if spec is None:
                raise Unresolvable(f"no condition named {name}")
            self._conditions[name] = bool(self.value(spec, ("Conditions", name)))
        return self._conditions[name]

    def exists(self, logical_id):
        condition = self.resources[logical_id].get("Condition")
        return condition is None or self.condition(condition)

    # --- references -------------------------------------------------------------------------
    def _shape(self, logical_id):
        resource = self.resources.get(logical_id)
        if resource is None:
            raise Unresolvable(f"no resource or parameter named {logical_id}")
        if not self.exists(logical_id):
            raise Unresolvable(f"{logical_id} is referred to, but its Condition is false here")
        shape = SHAPES.get(resource["Type"])
        if shape is None:
            raise Unresolvable(f"{logical_id} is a {resource['Type']}, whose Ref/GetAtt shape "
                               "scripts/iam_template.py does not know: teach it (SHAPES)")
        name_property, ref, attributes = shape
        name = None
        if name_property:
            name = (resource.get("Properties") or {}).get(name_property)
            name = generated_name(logical_id) if name is None else self.value(name, (logical_id, name_property))
        bus = self.value((resource.get("Properties") or {}).get("EventBusName", "default"), (logical_id,))
        bus = "" if bus in ("default", None) else bus.split("event-bus/")[-1] + "/"
        fields = {"name": name, "id": fake_id(logical_id), "bus": bus, "p": PARTITION, "r": REGION, "a": ACCOUNT}
        return fields, ref, attributes

    def ref(self, name):
        if name in self.pseudo:
            return self.pseudo[name]
        if name in self.parameters:
            return self.parameters[name]
        fields, ref, _ = self._shape(name)
        if ref is None:
            raise Unresolvable(f"Ref {name}: scripts/iam_template.py does not know what it gives "
                               f"for a {self.resources[name]['Type']}: teach it (SHAPES)")
        return ref.format(**fields)

    def get_att(self, logical_id, attribute):
        fields, _, attributes = self._shape(logical_id)
        if attribute not in attributes:
            raise Unresolvable(f"{logical_id}.{attribute}: scripts/iam_template.py does not know this "
                               f"attribute of {self.resources[logical_id]['Type']}: teach it (SHAPES)")
        return attributes[attribute].format(**fields)

    def sub(self, text, variables, path):
        def one(match):
            name = match.group(1)
            if name.startswith("!"):
                return "${" + name[1:] + "}"
            if name in variables:
                value = self.value(variables[name], path + (name,))
            elif "." in name and not name.startswith("AWS::"):
                value = self.get_att(*name.split(".", 1))
            else:
                value = self.ref(name)
            if not isinstance(value, str):
                raise Unresolvable(f"Fn::Sub ${{{name}}} is not a string: {value!r}")
            return value

        return re.sub(r"\$\{([^}]+)\}", one, text)

    # --- values -------------------------------------------------------------------------
    def value(self, node, path=()):
        """The node with every intrinsic resolved; NO_VALUE items and keys dropped."""
        if isinstance(node, list):
            items = (self.value(item, path + (index,)) for index, item in enumerate(node))
            return [item for item in items if item is not NO_VALUE]
        if not isinstance(node, dict):
            return node
        if len(node) == 1:
            (key, args), = node.items()
            if key == "Ref" or key.startswith("Fn::") or key == "Condition":
                return self.intrinsic(key, args, path)
        resolved = {key: self.value(item, path + (key,)) for key, item in node.items()}
        return {key: item for key, item in resolved.items() if item is not NO_VALUE}

    def intrinsic(self, function, args, path):
        here = path + (function,)
        if function == "Ref":
            return self.ref(args)
        if function == "Condition":
            return self.condition(args)
        if function == "Fn::If":
            name, when_true, when_false = args
            taken = self.condition(name)
            self.branches.append((path, name, taken))
            return self.value(when_true if taken else when_false, here + (1 if taken else 2,))
        if function == "Fn::GetAtt":
            logical_id, attribute = args.split(".", 1) if isinstance(args, str) else args
            return self.get_att(logical_id, self.value(attribute, here))
        if function == "Fn::Sub":
            text, variables = (args, {}) if isinstance(args, str) else args
            return self.sub(text, variables, here)
        values = self.value(args, here)
        if function == "Fn::Join":
            separator, items = values
            return separator.join(items)
        if function == "Fn::Select":
            index, items = values
            return items[int(index)]
        if function == "Fn::Split":
            separator, text = values
            return text.split(separator)
        if function == "Fn::Equals":
            return values[0] == values[1]
        if function == "Fn::Not":
            return not values[0]
        if function == "Fn::And":
            return all(values)
        if function == "Fn::Or":
            return any(values)
        if function == "Fn::EachMemberEquals":
            return all(member == values[1] for member in values[0])
        if function == "Fn::FindInMap":
            mapping, key, field = values
            return self.template["Mappings"][mapping][key][field]
        if function == "Fn::GetAZs":
            return [REGION + zone for zone in "abc"]
        raise Unresolvable(f"{function} at {'/'.join(map(str, path))}: scripts/iam_template.py "
                           "cannot resolve it offline: teach it")


def queue_arn(url):
    """The ARN of a queue given by its URL (what a QueuePolicy's Queues list holds)."""
    match = re.fullmatch(r"https://sqs\.([a-z0-9-]+)\.amazonaws\.com[^/]*/(\d{12})/(.+)", url)
    if not match:
        return url
    region, account, name = match.groups()
    return f"arn:{PARTITION}:sqs:{region}:{account}:{name}"


class Document:
    """One policy document, or a Lambda permission, to check; `owner` is the logical id the
    reader finds in the source template (a SAM function, not the role SAM made for it)."""

    def __init__(self, owner, where, kind, body, attached=(), logical_id=None):
        self.owner, self.where, self.kind, self.body, self.attached = owner, where, kind, body, attached
        self.logical_id = logical_id or owner  # the resource holding it, after the transform


BEARING = ("AWS::IAM::Role", "AWS::IAM::Policy", "AWS::IAM::ManagedPolicy", "AWS::IAM::RolePolicy",
           "AWS::SQS::QueuePolicy", "AWS::SNS::TopicPolicy", "AWS::Lambda::Permission")


def owners(source, transformed):
    """{role SAM generated: the function of the source template it is for}"""
    found = {}
    for logical_id, resource in transformed.get("Resources", {}).items():
        role = (resource.get("Properties") or {}).get("Role")
        if resource["Type"] == "AWS::Lambda::Function" and isinstance(role, dict) and "Fn::GetAtt" in role:
            target = role["Fn::GetAtt"]
            target = target.split(".")[0] if isinstance(target, str) else target[0]
            if target not in source.get("Resources", {}):
                found[target] = logical_id
    return found


def documents(source, transformed, resolver):
    """Every policy document (and Lambda permission) of the transformed template that
    exists in this scenario, resolved."""
    resources = transformed.get("Resources", {})
    generated = owners(source, transformed)
    for logical_id, resource in resources.items():
        if not resolver.exists(logical_id):
            continue
        kind = resource["Type"]
        properties = resource.get("Properties") or {}
        owner = generated.get(logical_id, logical_id)
        label = logical_id if owner == logical_id else f"{owner} (its role {logical_id})"

        def resolve(name):
            return resolver.value(properties.get(name), ("Resources", logical_id, "Properties", name))

        if kind == "AWS::IAM::Role":
            yield Document(owner, f"{label}, trust policy", "trust", resolve("AssumeRolePolicyDocument"),
                           logical_id=logical_id)
            # Managed policies are AWS's or the account's own documents: only their ARNs are here.
            yield Document(owner, f"{label}, ManagedPolicyArns", "managed-policies",
                           resolve("ManagedPolicyArns") or [], logical_id=logical_id)
            for policy in resolve("Policies") or []:
                name = policy.get("PolicyName", "?") if isinstance(policy, dict) else "?"
                body = policy.get("PolicyDocument") if isinstance(policy, dict) else policy
                yield Document(owner, f"{label}, policy {name}", "identity", body, logical_id=logical_id)
        elif kind in ("AWS::IAM::Policy", "AWS::IAM::ManagedPolicy", "AWS::IAM::RolePolicy"):
            yield Document(owner, label, "identity", resolve("PolicyDocument"), logical_id=logical_id)
        elif kind == "AWS::SQS::QueuePolicy":
            queues = [queue_arn(url) for url in resolve("Queues") or []]
            yield Document(owner, f"{label}, queue policy", "resource", resolve("PolicyDocument"), queues,
                           logical_id)
        elif kind == "AWS::SNS::TopicPolicy":
            yield Document(owner, f"{label}, topic policy", "resource", resolve("PolicyDocument"),
                           resolve("Topics") or [], logical_id)
        elif kind == "AWS::Lambda::Permission":
            body = {name: resolve(name) for name in ("Action", "Principal", "FunctionName", "SourceArn")}
            yield Document(owner, f"{label}, Lambda permission", "lambda-permission", body, logical_id=logical_id)
