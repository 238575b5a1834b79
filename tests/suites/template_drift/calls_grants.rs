//! Calls ↔ grants (issue 23, item 2): for every function of template.yaml, the AWS calls
//! its wiring can make are exactly what its role grants, in every deployment shape the
//! template's conditions allow.
//!
//! The calls are not listed here: each function is built by its own `wire` on the AWS
//! wiring (`aws_adapters::wiring::on_aws`), whose adapters declare what they call as IAM
//! authorizes it (`aws_adapters::calls`), and the recorder collects them; the authorizer
//! declares its Parameter Store read (`authorizer::secret::calls`); the heartbeat route's
//! role is compared with the UpdateItem its integration makes, read from the template as
//! the local stack runs it. The grants are each function's `Policies` (and the heartbeat
//! role's), with the template's intrinsics and conditions evaluated for one set of
//! parameter values: a [`Scenario`]. A call without a grant fails (AccessDenied on AWS);
//! a grant nothing calls fails too, unless [`EXCEPTIONS`] says who else uses it.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use aws_adapters::calls::{AwsCall, Resource};
use serde_json::{Map, Value};
use shared::config::{Config, EnvReader};
use shared::matchmaking::MatchmakingSettings;
use shared::ports::SystemClock;

use super::FUNCTION;
use super::cfn::Template;

const REGION: &str = "us-east-1";
const ACCOUNT: &str = "123456789012";

/// One deployment shape: parameter values over the template's defaults.
struct Scenario {
    name: &'static str,
    parameters: &'static [(&'static str, &'static str)],
}

/// Every condition a grant depends on takes each of its values in one of these: the
/// sweeper's GetConnection (PresenceLiveness), the HS256 secret (none, by path, by plain
/// name), the queues (named, made by the stack and named), matchmaking (off, by name,
/// made by the stack), the player gateway (disabled, enabled, required).
const SCENARIOS: [Scenario; 3] = [
    Scenario {
        name: "defaults (heartbeat liveness, JWKS keys, one queue named, no matchmaking)",
        parameters: &[
            ("JwtIssuer", "https://issuer.example"),
            ("JwtAudience", "game"),
            ("JwksUrl", "https://issuer.example/.well-known/jwks.json"),
            ("GameSessionQueues", "eu-queue"),
        ],
    },
    Scenario {
        name: "connection-activity liveness, an HS256 secret by path, a queue made by the \
               stack and two named, matchmaking by name, player gateway enabled",
        parameters: &[
            ("PresenceLiveness", "connection-activity"),
            ("JwtIssuer", "https://issuer.example"),
            ("JwtAudience", "game"),
            ("JwtHs256SecretParameter", "/gamelift-sockets/jwt-secret"),
            (
                "FleetArns",
                "arn:aws:gamelift:us-east-1:123456789012:fleet/fleet-1",
            ),
            ("GameSessionQueues", "eu-queue,us-queue"),
            ("MatchmakingConfigurationName", "ranked"),
            ("PlayerGateway", "enabled"),
        ],
    },
    Scenario {
        name: "an HS256 secret by plain name, matchmaking made by the stack, player gateway \
               required",
        parameters: &[
            ("JwtIssuer", "https://issuer.example"),
            ("JwtAudience", "game"),
            ("JwtHs256SecretParameter", "gamelift-sockets-jwt-secret"),
            ("GameSessionQueues", "eu-queue"),
            ("MatchmakingRuleSetBody", "{\"name\": \"1v1\"}"),
            ("PlayerGateway", "required"),
        ],
    },
];

/// Grants no adapter calls, each with who does call with them: (function binary, or `*`
/// for every function; action; text the resource contains; why).
const EXCEPTIONS: &[(&str, &str, &str, &str)] = &[
    (
        "on-message-inserted",
        "dynamodb:DescribeStream",
        "table/MessagesTable/stream/",
        "the event source mapping reads the Messages stream with the function's role",
    ),
    (
        "on-message-inserted",
        "dynamodb:GetRecords",
        "table/MessagesTable/stream/",
        "the event source mapping reads the Messages stream with the function's role",
    ),
    (
        "on-message-inserted",
        "dynamodb:GetShardIterator",
        "table/MessagesTable/stream/",
        "the event source mapping reads the Messages stream with the function's role",
    ),
    (
        "on-message-inserted",
        "dynamodb:ListStreams",
        "*",
        "the event source mapping lists the table's streams with the function's role",
    ),
    (
        "*",
        "sqs:SendMessage",
        ":sqs:",
        "Lambda sends a failed asynchronous invocation or batch to the function's OnFailure \
         destination with the function's role",
    ),
];

/// One grant or call, as IAM matches it: an action on a resource ARN.
type Grant = (String, String);

/// What a resource is, as an ARN.
fn arn(resource: &Resource, stage: &str) -> String {
    let prefix = |service: &str| format!("arn:aws:{service}:{REGION}:{ACCOUNT}");
    match resource {
        Resource::Table(table) => format!("{}:table/{table}", prefix("dynamodb")),
        Resource::Index { table, index } => {
            format!("{}:table/{table}/index/{index}", prefix("dynamodb"))
        }
        // A function answers on the WebSocket API that invoked it: this stack's.
        Resource::Connections(verb) => format!(
            "{}:WebSocketApi/{stage}/{}/@connections/*",
            prefix("execute-api"),
            verb.as_str()
        ),
        Resource::GameSessionQueue(queue) => {
            format!("{}:gamesessionqueue/{queue}", prefix("gamelift"))
        }
        Resource::EventBus(bus) => format!("{}:event-bus/{bus}", prefix("events")),
        Resource::Parameter(name) if name.starts_with('/') => {
            format!("{}:parameter{name}", prefix("ssm"))
        }
        Resource::Parameter(name) => format!("{}:parameter/{name}", prefix("ssm")),
        Resource::KeyViaSsm { .. } => format!("{}:key/*", prefix("kms")),
        Resource::Any => "*".to_owned(),
    }
}

fn grants_of(calls: impl IntoIterator<Item = AwsCall>, stage: &str) -> BTreeSet<Grant> {
    calls
        .into_iter()
        .map(|call| (call.action, arn(&call.resource, stage)))
        .collect()
}

/// The template's intrinsics, evaluated for one scenario's parameter values (a resource's
/// name is its logical id).
struct Evaluator<'t> {
    template: &'t Template,
    parameters: HashMap<String, Value>,
}

impl<'t> Evaluator<'t> {
    fn new(template: &'t Template, scenario: &Scenario) -> Self {
        let declared = template.root()["Parameters"]
            .as_object()
            .cloned()
            .unwrap_or_default();
        let mut parameters: HashMap<String, Value> = declared
            .iter()
            .map(|(name, declaration)| {
                let default = match &declaration["Default"] {
                    Value::Number(number) => number.to_string(),
                    Value::String(text) => text.clone(),
                    _ => String::new(),
                };
                (name.clone(), Value::String(default))
            })
            .collect();
        for (name, value) in scenario.parameters {
            assert!(
                declared.contains_key(*name),
                "scenario {:?} sets {name}, which template.yaml does not declare",
                scenario.name
            );
            parameters.insert((*name).to_owned(), Value::String((*value).to_owned()));
        }
        for (name, declaration) in &declared {
            if declaration["Type"] == "CommaDelimitedList" {
                let text = parameters[name].as_str().unwrap_or_default().to_owned();
                let list = text
                    .split(',')
                    .map(|s| Value::String(s.to_owned()))
                    .collect();
                parameters.insert(name.clone(), Value::Array(list));
            }
        }
        Self {
            template,
            parameters,
        }
    }

    fn text(&self, name: &str) -> String {
        self.parameters[name]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }

    fn reference(&self, name: &str) -> Value {
        match name {
            "AWS::Partition" => "aws".into(),
            "AWS::Region" => REGION.into(),
            "AWS::AccountId" => ACCOUNT.into(),
            "AWS::StackName" => "gamelift-sockets".into(),
            "AWS::NoValue" => Value::Null,
            name => match self.parameters.get(name) {
                Some(value) => value.clone(),
                None if self.template.resources().contains_key(name) => name.into(),
                None => panic!("!Ref {name}: no such parameter or resource"),
            },
        }
    }

    fn attribute(&self, resource: &str, attribute: &str) -> String {
        let kind = self.template.type_of(resource);
        let prefix = |service: &str| format!("arn:aws:{service}:{REGION}:{ACCOUNT}");
        match (kind, attribute) {
            ("AWS::DynamoDB::Table", "Arn") => format!("{}:table/{resource}", prefix("dynamodb")),
            ("AWS::DynamoDB::Table", "StreamArn") => {
                format!("{}:table/{resource}/stream/*", prefix("dynamodb"))
            }
            ("AWS::Events::EventBus", "Arn") => {
                format!("{}:event-bus/{resource}", prefix("events"))
            }
            ("AWS::GameLift::GameSessionQueue", "Arn") => {
                format!("{}:gamesessionqueue/{resource}", prefix("gamelift"))
            }
            ("AWS::SQS::Queue", "Arn") => format!("{}:{resource}", prefix("sqs")),
            _ => format!("arn-of:{resource}.{attribute}"),
        }
    }

    fn condition(&self, name: &str) -> bool {
        let condition = &self.template.root()["Conditions"][name];
        assert!(!condition.is_null(), "no condition {name}");
        self.truth(condition)
    }

    fn truth(&self, value: &Value) -> bool {
        match self.eval(value) {
            Value::Bool(truth) => truth,
            Value::String(text) => text == "true",
            other => panic!("{value} is not a condition: {other}"),
        }
    }

    fn substitute(&self, text: &str, names: &Map<String, Value>) -> String {
        super::cfn::substitute(text, |name| {
            let value = match names.get(name) {
                Some(value) => self.eval(value),
                None => match name.split_once('.') {
                    Some((resource, attribute)) if !name.starts_with("AWS::") => {
                        Value::String(self.attribute(resource, attribute))
                    }
                    _ => self.reference(name),
                },
            };
            value.as_str().unwrap_or_default().to_owned()
        })
    }

    /// `value` with every intrinsic evaluated; `Null` where `AWS::NoValue` removed it.
    fn eval(&self, value: &Value) -> Value {
        let Value::Object(map) = value else {
            return match value {
                Value::Array(items) => Value::Array(
                    items
                        .iter()
                        .map(|item| self.eval(item))
                        .filter(|item| !item.is_null())
                        .collect(),
                ),
                other => other.clone(),
            };
        };
        if map.len() == 1 {
            let (key, argument) = map.iter().next().expect("one entry");
            let arguments = || argument.as_array().cloned().unwrap_or_default();
            match key.as_str() {
                "Ref" => return self.reference(argument.as_str().unwrap_or_default()),
                "Fn::GetAtt" => {
                    let (resource, attribute) = match argument {
                        Value::String(text) => text.split_once('.').expect("A.B"),
                        _ => panic!("!GetAtt {argument}"),
                    };
                    return Value::String(self.attribute(resource, attribute));
                }
                "Fn::Sub" => {
                    return Value::String(match argument {
                        Value::String(text) => self.substitute(text, &Map::new()),
                        Value::Array(parts) => self.substitute(
                            parts[0].as_str().unwrap_or_default(),
                            parts[1].as_object().expect("!Sub's names"),
                        ),
                        _ => panic!("!Sub {argument}"),
                    });
                }
                "Fn::If" => {
                    let branches = arguments();
                    let chosen = if self.condition(branches[0].as_str().unwrap_or_default()) {
                        &branches[1]
                    } else {
                        &branches[2]
                    };
                    return self.eval(chosen);
                }
                "Fn::Equals" => {
                    let sides = arguments();
                    return Value::Bool(self.eval(&sides[0]) == self.eval(&sides[1]));
                }
                "Fn::Not" => return Value::Bool(!self.truth(&arguments()[0])),
                "Fn::Or" => return Value::Bool(arguments().iter().any(|c| self.truth(c))),
                "Fn::And" => return Value::Bool(arguments().iter().all(|c| self.truth(c))),
                "Condition" => {
                    return Value::Bool(self.condition(argument.as_str().unwrap_or_default()));
                }
                "Fn::Join" => {
                    let parts = arguments();
                    let separator = parts[0].as_str().unwrap_or_default();
                    let items = self.eval(&parts[1]);
                    let items: Vec<String> = items
                        .as_array()
                        .into_iter()
                        .flatten()
                        .map(|item| match item {
                            Value::Array(list) => list
                                .iter()
                                .map(|v| v.as_str().unwrap_or_default())
                                .collect::<Vec<_>>()
                                .join(","),
                            other => other.as_str().unwrap_or_default().to_owned(),
                        })
                        .collect();
                    return Value::String(items.join(separator));
                }
                "Fn::Split" => {
                    let parts = arguments();
                    let separator = parts[0].as_str().unwrap_or_default();
                    let text = self.eval(&parts[1]);
                    return Value::Array(
                        text.as_str()
                            .unwrap_or_default()
                            .split(separator)
                            .map(|s| Value::String(s.to_owned()))
                            .collect(),
                    );
                }
                "Fn::Select" => {
                    let parts = arguments();
                    let index = match self.eval(&parts[0]) {
                        Value::Number(n) => n.as_u64().unwrap_or_default() as usize,
                        Value::String(s) => s.parse().unwrap_or_default(),
                        other => panic!("!Select index {other}"),
                    };
                    let list = self.eval(&parts[1]);
                    return list.get(index).cloned().unwrap_or(Value::Null);
                }
                _ => {}
            }
        }
        Value::Object(
            map.iter()
                .map(|(key, value)| (key.clone(), self.eval(value)))
                .filter(|(_, value)| !value.is_null())
                .collect(),
        )
    }

    /// What `policies` (a function's `Policies`, or a role's `PolicyDocument`s) allow.
    fn granted(&self, statements: impl IntoIterator<Item = Value>) -> BTreeSet<Grant> {
        let mut granted = BTreeSet::new();
        for statement in statements {
            let statement = self.eval(&statement);
            if statement.is_null() || statement["Effect"] != "Allow" {
                continue;
            }
            let list = |value: &Value| match value {
                Value::Array(items) => items
                    .iter()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect(),
                Value::String(one) => vec![one.clone()],
                _ => Vec::new(),
            };
            for action in list(&statement["Action"]) {
                for resource in list(&statement["Resource"]) {
                    granted.insert((action.clone(), resource));
                }
            }
        }
        granted
    }

    /// The function's environment in Lambda: the Globals' variables and its own.
    fn environment(&self, function: &str) -> HashMap<String, String> {
        let mut variables = self.template.global_variables().clone();
        variables.extend(self.template.own_variables(function));
        variables
            .iter()
            .map(|(name, value)| {
                let value = match self.eval(value) {
                    Value::String(text) => text,
                    Value::Number(number) => number.to_string(),
                    Value::Null => String::new(),
                    other => panic!("{function}'s {name} is {other}"),
                };
                (name.clone(), value)
            })
            .collect()
    }
}

/// The statements of a function's `Policies` (each a policy document).
fn function_statements(template: &Template, function: &str) -> Vec<Value> {
    let policies = &template.properties(function)["Policies"];
    let mut statements = Vec::new();
    for policy in policies.as_array().into_iter().flatten() {
        // A policy under a condition: `!If [cond, {Statement: ...}, !Ref AWS::NoValue]`
        // is kept whole (the evaluator picks the branch), the statements inside it too.
        match policy {
            Value::Object(map) if map.contains_key("Statement") => {
                statements.extend(policy["Statement"].as_array().cloned().unwrap_or_default())
            }
            Value::Object(map) if map.contains_key("Fn::If") => {
                statements.push(conditional_statements(policy))
            }
            other => panic!("{function}'s policy {other} is neither a document nor an !If"),
        }
    }
    statements
}

/// `!If [cond, {Statement: [...]}, other]` as one value that evaluates to the statement
/// list chosen (a list flattened by [`Evaluator::granted`]'s caller).
fn conditional_statements(policy: &Value) -> Value {
    let branches = policy["Fn::If"].as_array().expect("!If [...]");
    let pick = |branch: &Value| match branch.get("Statement") {
        Some(statements) => statements.clone(),
        None => branch.clone(),
    };
    serde_json::json!({"Fn::If": [branches[0], pick(&branches[1]), pick(&branches[2])]})
}

/// The calls function `id` (deploying `binary`) can make, as its wiring builds it with
/// `env`.
fn calls_of(binary: &str, env: &HashMap<String, String>, stage: &str) -> BTreeSet<Grant> {
    if binary == "authorizer" {
        let config = authorizer::AuthConfig::from_reader(
            EnvReader::from_map(env),
            authorizer::Runtime::Lambda,
        )
        .unwrap_or_else(|e| panic!("the authorizer refuses its environment: {e}"));
        return grants_of(authorizer::secret::calls(&config), stage);
    }
    let config =
        Config::from_map(env).unwrap_or_else(|e| panic!("{binary} refuses its environment: {e}"));
    let matchmaking = MatchmakingSettings::read(&mut EnvReader::from_map(env));
    let sdk = aws_config::SdkConfig::builder()
        .behavior_version(aws_config::BehaviorVersion::latest())
        .region(aws_config::Region::new(REGION))
        .build();
    let (w, recorder) =
        aws_adapters::wiring::on_aws(&sdk, Arc::new(config), matchmaking, Arc::new(SystemClock));
    match binary {
        "connect" => drop(connect::wire(&w)),
        "disconnect" => drop(disconnect::wire(&w)),
        // `$default` answers without calling anything.
        "default" => {}
        "resume" => drop(resume::wire(&w)),
        "send-message" => drop(send_message::wire(&w)),
        "on-message-inserted" => drop(on_message_inserted::wire(&w)),
        "session-placement-request" => drop(session_placement_request::wire(&w)),
        "cancel-placement" => drop(cancel_placement::wire(&w)),
        "rejoin-session" => drop(rejoin_session::wire(&w)),
        "on-placement-event" => drop(on_placement_event::wire(&w)),
        "presence-timeout" => drop(presence_timeout::wire(&w)),
        "subscribe-presence" => drop(subscribe_presence::wire(&w)),
        "party" => drop(party::wire(&w)),
        "friends" => drop(friends::wire(&w)),
        "backend-api" => drop(backend_api::wire(&w)),
        "matchmaking" => drop(matchmaking::wire(&w)),
        "on-matchmaking-event" => drop(on_matchmaking_event::wire(&w)),
        "on-presence-event" => drop(on_presence_event::wire(&w)),
        other => panic!("no wiring known for the function binary {other}: add it here"),
    }
    grants_of(recorder.calls(), stage)
}

/// The heartbeat route's integration: the action and table of its request template, as
/// the local stack runs it.
fn heartbeat_calls(template: &Template) -> BTreeSet<Grant> {
    let routes = local::integration::route_templates(
        template.root(),
        "heartbeat",
        &[
            ("PlayersTable", "PlayersTable"),
            ("HeartbeatTimeoutSeconds", "90"),
        ],
    )
    .unwrap_or_else(|e| panic!("the heartbeat route's integration: {e}"));
    let table = routes
        .request
        .split("\"TableName\": \"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("the heartbeat's request names its table");
    let resource = Resource::Table(table.to_owned());
    grants_of([AwsCall::new(routes.action, resource)], "")
}

fn excepted(binary: &str, (action, resource): &Grant) -> bool {
    EXCEPTIONS.iter().any(|(who, excepted, within, _why)| {
        (*who == "*" || *who == binary) && excepted == action && resource.contains(within)
    })
}

/// Every disagreement between calls and grants in `template`, in every scenario.
pub fn problems(template: &Template) -> Vec<String> {
    let mut problems = Vec::new();
    for scenario in &SCENARIOS {
        let evaluator = Evaluator::new(template, scenario);
        let stage = evaluator.text("Stage");
        let mut roles: Vec<(String, String, BTreeSet<Grant>, BTreeSet<Grant>)> = Vec::new();
        for (function, _) in template.of_type(FUNCTION) {
            let binary = template.function_binary(function).to_owned();
            let env = evaluator.environment(function);
            let calls = calls_of(&binary, &env, &stage);
            let granted = evaluator.granted(
                function_statements(template, function)
                    .into_iter()
                    .flat_map(|statements| match evaluator.eval(&statements) {
                        Value::Array(list) => list,
                        Value::Null => Vec::new(),
                        one => vec![one],
                    }),
            );
            roles.push((function.to_owned(), binary, calls, granted));
        }
        let role = template.properties("HeartbeatIntegrationRole");
        let documents = role["Policies"].as_array().cloned().unwrap_or_default();
        let granted = evaluator.granted(documents.iter().flat_map(|policy| {
            policy["PolicyDocument"]["Statement"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        }));
        roles.push((
            "HeartbeatIntegrationRole".into(),
            "heartbeat".into(),
            heartbeat_calls(template),
            granted,
        ));
        for (who, binary, calls, granted) in roles {
            for missing in calls.difference(&granted) {
                problems.push(format!(
                    "[{}] {who} calls {} on {} but is not granted it",
                    scenario.name, missing.0, missing.1
                ));
            }
            for unused in granted.difference(&calls) {
                if !excepted(&binary, unused) {
                    problems.push(format!(
                        "[{}] {who} is granted {} on {} but nothing it is built with calls it",
                        scenario.name, unused.0, unused.1
                    ));
                }
            }
        }
    }
    problems
}

#[test]
fn given_every_function_and_the_heartbeat_role_when_deployed_then_each_is_granted_exactly_what_its_wiring_calls()
 {
    super::assert_no_problems(
        "template.yaml's grants and the functions' calls disagree",
        &problems(&Template::load()),
    );
}

#[test]
fn given_a_grant_removed_from_a_function_when_checked_then_its_call_is_reported_missing() {
    let mut root = Template::load().root().clone();
    let statements = root["Resources"]["ConnectFunction"]["Properties"]["Policies"][0]["Statement"]
        .as_array_mut()
        .expect("ConnectFunction's statements");
    statements.retain(|statement| statement["Action"] != "events:PutEvents");
    let problems = problems(&Template::parse(&root.to_string()).expect("JSON is YAML"));
    assert!(
        problems.iter().any(|p| p.contains(
            "ConnectFunction calls events:PutEvents on arn:aws:events:us-east-1:123456789012:event-bus/PresenceEventBus but is not granted it"
        )),
        "{problems:#?}"
    );
}

#[test]
fn given_a_grant_nothing_calls_when_checked_then_it_is_reported_unless_excepted() {
    let mut root = Template::load().root().clone();
    let statements =
        root["Resources"]["DisconnectFunction"]["Properties"]["Policies"][0]["Statement"]
            .as_array_mut()
            .expect("DisconnectFunction's statements");
    statements.push(serde_json::json!({
        "Effect": "Allow",
        "Action": "dynamodb:DeleteItem",
        "Resource": {"Fn::GetAtt": "PlayersTable.Arn"},
    }));
    let problems = problems(&Template::parse(&root.to_string()).expect("JSON is YAML"));
    assert!(
        problems.iter().any(|p| p.contains(
            "DisconnectFunction is granted dynamodb:DeleteItem on arn:aws:dynamodb:us-east-1:123456789012:table/PlayersTable but nothing it is built with calls it"
        )),
        "{problems:#?}"
    );
}

#[test]
fn given_the_sweepers_get_connection_when_liveness_changes_then_it_is_called_and_granted_only_in_connection_activity_mode()
 {
    let template = Template::load();
    let get = |scenario: &Scenario| {
        let evaluator = Evaluator::new(&template, scenario);
        let env = evaluator.environment("PresenceTimeoutFunction");
        let stage = evaluator.text("Stage");
        calls_of("presence-timeout", &env, &stage)
            .iter()
            .any(|(_, resource)| resource.ends_with("/GET/@connections/*"))
    };
    assert!(!get(&SCENARIOS[0]), "heartbeat mode never asks API Gateway");
    assert!(
        get(&SCENARIOS[1]),
        "connection-activity mode asks GetConnection"
    );
}

#[test]
fn given_the_player_gateway_when_its_mode_changes_then_connection_details_are_called_and_granted_only_by_the_functions_that_seat_players_and_only_when_asked()
 {
    let template = Template::load();
    let asking = |scenario: &Scenario| {
        let evaluator = Evaluator::new(&template, scenario);
        let stage = evaluator.text("Stage");
        let mut asking: Vec<String> = Vec::new();
        for (function, _) in template.of_type(FUNCTION) {
            let binary = template.function_binary(function);
            if binary == "authorizer" {
                continue;
            }
            let calls = calls_of(binary, &evaluator.environment(function), &stage);
            if calls
                .iter()
                .any(|(action, _)| action == "gamelift:GetPlayerConnectionDetails")
            {
                asking.push(binary.to_owned());
            }
        }
        asking.sort();
        asking.dedup();
        asking
    };
    assert!(
        asking(&SCENARIOS[0]).is_empty(),
        "PLAYER_GATEWAY=disabled asks GameLift nothing"
    );
    let seating = [
        "on-matchmaking-event",
        "on-placement-event",
        "rejoin-session",
    ];
    assert_eq!(asking(&SCENARIOS[1]), seating, "enabled");
    assert_eq!(asking(&SCENARIOS[2]), seating, "required");
}
