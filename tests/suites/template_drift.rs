//! No drift between `template.yaml` and the code: what the template deploys is what the
//! code assumes, checked both ways where the code can say what it assumes.
//!
//! - routes: the WebSocket API's route keys, each route's function and authorizer, the
//!   selection expression and two-way replies, against the local stack's route table
//!   (`Routes::wire`, built as `cargo run -p local` builds it) and the protocol's `Route`;
//! - tables: keys, attributes, indexes, stream and TTL of each table, against what
//!   `adapters/aws/src/dynamodb/tables.rs` creates on DynamoDB Local (these tests need
//!   `DYNAMODB_ENDPOINT`, like the other `*_dynamodb` suites);
//! - environment: every variable the template sets is one the function's reader reads,
//!   and the template sets every variable `shared::config` requires;
//! - the Messages stream's event source mapping: its filter, evaluated on the records the
//!   code's items make, and partial batch failures;
//! - the backend API (`template_drift/backend.rs`): its one route, as the local stack serves
//!   it, with AWS_IAM;
//! - calls and grants (`template_drift/calls_grants.rs`): every function's role (and the
//!   heartbeat integration's) grants exactly the AWS calls its wiring can make, in each
//!   deployment shape the template's conditions allow;
//! - `local/sam-env.json` (`template_drift/sam_env.rs`), the environment `sam local invoke`
//!   gives each function, and the variables the template declares only for it;
//! - the dashboard and alarms (`template_drift/metrics.rs`): every metric they name is one
//!   a function emits with its dimensions, every emitted metric is on the dashboard.
//!
//! Run alone with `cargo test -p tests --test suites template_drift`.

mod backend;
mod build;
mod calls_grants;
mod cfn;
mod filter;
mod metrics;
mod sam_env;
mod settings;

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashMap};

use aws_sdk_dynamodb::types::{TableDescription, TimeToLiveStatus};
use cfn::{Template, ref_name, strings};
use local::routes::{CONNECT, DEFAULT, DISCONNECT};
use local::{LocalStack, Routes, Settings};
use serde_json::{Value, json};
use shared::config::{Config, EnvReader};
use shared::requests::Route;
use tests::dynamodb::Table;

const ROUTE: &str = "AWS::ApiGatewayV2::Route";
const ROUTE_RESPONSE: &str = "AWS::ApiGatewayV2::RouteResponse";
const INTEGRATION: &str = "AWS::ApiGatewayV2::Integration";
const FUNCTION: &str = "AWS::Serverless::Function";
const TABLE: &str = "AWS::DynamoDB::Table";

/// Fails with every problem found, under a headline saying what disagrees.
fn assert_no_problems(headline: &str, problems: &[String]) {
    assert!(
        problems.is_empty(),
        "{headline}:\n  - {}",
        problems.join("\n  - ")
    );
}

// --- Routes ------------------------------------------------------------------------------------

/// One `AWS::ApiGatewayV2::Route` of the template, followed to its function, or to the
/// AWS action its integration calls itself.
struct TemplateRoute {
    resource: String,
    key: String,
    /// Its integration's logical id.
    integration: String,
    /// The logical id of the function its integration invokes (`None`: an `AWS`
    /// integration, no function).
    function: Option<String>,
    /// That function's binary (`BuildProperties.Binary`), or `integration:<action>`.
    binary: String,
}

/// `dynamodb:UpdateItem` from `arn:${AWS::Partition}:apigateway:${AWS::Region}:dynamodb:action/UpdateItem`.
fn aws_action(uri: &Value) -> Option<String> {
    let uri = uri["Fn::Sub"].as_str()?;
    let (_, rest) = uri.split_once(":apigateway:${AWS::Region}:")?;
    let (service, action) = rest.split_once(":action/")?;
    Some(format!("{service}:{action}"))
}

fn template_routes(template: &Template) -> Vec<TemplateRoute> {
    template
        .of_type(ROUTE)
        .into_iter()
        .map(|(id, route)| {
            let properties = &route["Properties"];
            let key = properties["RouteKey"]
                .as_str()
                .unwrap_or_else(|| panic!("route {id}'s RouteKey is not a plain string"))
                .to_owned();
            let integration = template.referenced(
                &properties["Target"],
                INTEGRATION,
                &format!("route {id}'s Target"),
            );
            let integration_properties = template.properties(&integration);
            if integration_properties["IntegrationType"] == "MOCK" {
                return TemplateRoute {
                    resource: id.to_owned(),
                    key,
                    integration,
                    function: None,
                    binary: "integration:mock".to_owned(),
                };
            }
            if integration_properties["IntegrationType"] == "AWS" {
                let action = aws_action(&integration_properties["IntegrationUri"])
                    .unwrap_or_else(|| panic!("{integration} calls no AWS action"));
                return TemplateRoute {
                    resource: id.to_owned(),
                    key,
                    integration,
                    function: None,
                    binary: format!("integration:{action}"),
                };
            }
            let function = template.referenced(
                &integration_properties["IntegrationUri"],
                FUNCTION,
                &format!("integration {integration}'s IntegrationUri"),
            );
            TemplateRoute {
                resource: id.to_owned(),
                key,
                integration,
                binary: template.function_binary(&function).to_owned(),
                function: Some(function),
            }
        })
        .collect()
}

/// Route key → function binary, as the template deploys them.
fn template_route_functions(template: &Template) -> BTreeMap<String, String> {
    let mut routes = BTreeMap::new();
    for route in template_routes(template) {
        if let Some(other) = routes.insert(route.key.clone(), route.binary) {
            panic!(
                "template.yaml declares route {} twice (again in {}, besides one to {other})",
                route.key, route.resource
            );
        }
    }
    routes
}

/// The local stack as `cargo run -p local` assembles it (in memory, not serving).
async fn local_stack() -> LocalStack {
    let mut settings = Settings::default();
    settings.gateway.port = 0;
    LocalStack::build(settings)
        .await
        .unwrap_or_else(|e| panic!("the local stack did not build: {e}"))
}

/// Route key → function name (or `integration:<action>`), as `Routes::wire` wires them.
fn local_route_functions(routes: &Routes) -> BTreeMap<String, String> {
    routes
        .keys()
        .into_iter()
        .map(|key| {
            let target = match (routes.get(key), routes.integration(key)) {
                (Some(route), _) => route.function.clone(),
                (None, Some(integration)) => format!("integration:{}", integration.action()),
                (None, None) => panic!("a listed key has no route"),
            };
            (key.to_owned(), target)
        })
        .collect()
}

/// The crate a type is defined in (`authorizer::Authorizer` → `authorizer`).
fn crate_of<T>() -> &'static str {
    let path = std::any::type_name::<T>();
    path.split("::").next().unwrap_or(path)
}

#[tokio::test]
async fn given_the_template_routes_when_compared_with_the_local_stack_then_the_same_keys_reach_the_same_functions()
 {
    let template = template_route_functions(&Template::load());
    let mut stack = local_stack().await;
    let local = local_route_functions(stack.routes_mut());

    let mut problems = Vec::new();
    for (key, binary) in &template {
        match local.get(key) {
            None => problems.push(format!(
                "route {key:?} is deployed (to {binary}) but the local stack does not wire it"
            )),
            Some(function) if function != binary => problems.push(format!(
                "route {key:?} invokes {binary} in template.yaml but {function} in the local stack"
            )),
            Some(_) => {}
        }
    }
    for (key, function) in &local {
        if !template.contains_key(key) {
            problems.push(format!(
                "the local stack wires route {key:?} (to {function}) but template.yaml does not deploy it"
            ));
        }
    }
    assert_no_problems(
        "template.yaml's WebSocket routes and the local stack's route table (local/src/routes.rs, Routes::wire) disagree",
        &problems,
    );
}

#[test]
fn given_the_protocol_routes_when_compared_with_the_template_then_its_route_keys_are_they_and_the_dollar_ones()
 {
    let deployed: BTreeSet<String> = template_route_functions(&Template::load())
        .into_keys()
        .collect();
    let mut listed: BTreeSet<String> = Route::ALL
        .iter()
        .map(|route| route.as_str().to_owned())
        .collect();
    assert_eq!(
        listed.len(),
        Route::ALL.len(),
        "Route::ALL names a route twice"
    );
    listed.extend([CONNECT, DISCONNECT, DEFAULT].map(str::to_owned));
    let mut problems = Vec::new();
    for key in deployed.difference(&listed) {
        problems.push(format!(
            "route {key:?} is deployed but the protocol's Route does not declare it"
        ));
    }
    for key in listed.difference(&deployed) {
        problems.push(format!(
            "the protocol declares route {key:?} but template.yaml deploys no such route"
        ));
    }
    assert_no_problems(
        "the protocol's routes (and $connect, $disconnect, $default) and template.yaml's WebSocket route keys disagree",
        &problems,
    );
}

#[test]
fn given_the_presence_rule_when_compared_with_the_presence_events_then_it_matches_every_detail_type()
 {
    let template = Template::load();
    let pattern = &template.properties("PresenceEventsRule")["EventPattern"];
    let matched: BTreeSet<String> = strings(&pattern["detail-type"]).into_iter().collect();
    let published: BTreeSet<String> = shared::presence::PRESENCE_DETAIL_TYPES
        .iter()
        .map(|kind| (*kind).to_owned())
        .collect();
    assert_eq!(
        matched, published,
        "PresenceEventsRule's detail-types are not the presence events' (shared/src/presence.rs)"
    );
}

#[tokio::test]
async fn given_a_frame_when_api_gateway_selects_its_route_then_it_reads_request_body_route_as_the_local_stack_does()
 {
    let template = Template::load();
    let apis = template.of_type("AWS::ApiGatewayV2::Api");
    let [(api, properties)] = apis
        .iter()
        .map(|(id, api)| (*id, &api["Properties"]))
        .collect::<Vec<_>>()[..]
    else {
        panic!("template.yaml should declare exactly one AWS::ApiGatewayV2::Api");
    };
    assert_eq!(
        properties["ProtocolType"], "WEBSOCKET",
        "{api}'s ProtocolType"
    );
    assert_eq!(
        properties["RouteSelectionExpression"], "$request.body.route",
        "{api}'s RouteSelectionExpression: clients send {{\"route\": ...}} (README, client \
         protocol) and the local stack selects on that field (Routes::select)"
    );

    let mut stack = local_stack().await;
    let routes = stack.routes_mut();
    for key in template_route_functions(&template)
        .into_keys()
        .filter(|key| !key.starts_with('$'))
    {
        let selected = |frame: Value| {
            routes
                .select(Some(&frame.to_string()))
                .map(|route| route.key().to_owned())
        };
        assert_eq!(
            selected(json!({ "route": key })).as_deref(),
            Some(key.as_str()),
            "the local stack does not select route {key:?} from the frame's `route`"
        );
        assert_eq!(
            selected(json!({ "action": key })).as_deref(),
            Some(DEFAULT),
            "the local stack selects route {key:?} from a field other than `route`"
        );
    }
}

#[test]
fn given_a_frame_route_when_its_function_replies_then_the_template_sends_the_reply_back() {
    // The local stack sends every frame route's reply (the proxy integration's response
    // body) back to the client; API Gateway does that only for a two-way route: one with
    // a route response and a RouteResponseSelectionExpression.
    let template = Template::load();
    let responses: BTreeMap<String, String> = template
        .of_type(ROUTE_RESPONSE)
        .into_iter()
        .filter_map(|(_, response)| {
            let properties = &response["Properties"];
            let route = ref_name(&properties["RouteId"])?.to_owned();
            Some((route, properties["RouteResponseKey"].as_str()?.to_owned()))
        })
        .collect();
    let mut problems = Vec::new();
    for route in template_routes(&template) {
        let properties = template.properties(&route.resource);
        let integration = &route.integration;
        let integration_type = &template.properties(integration)["IntegrationType"];
        if route.binary == "integration:mock" {
            // A MOCK route reaches nothing (no role, no URI) and, since the local stack
            // sends nothing for it, must be one-way.
            let properties = template.properties(integration);
            if properties.get("CredentialsArn").is_some()
                || properties.get("IntegrationUri").is_some()
            {
                problems.push(format!("MOCK integration {integration} reaches something"));
            }
            if responses.contains_key(&route.resource) {
                problems.push(format!(
                    "MOCK route {:?} has a route response: the local stack would not answer",
                    route.key
                ));
            }
            continue;
        }
        let expected = if route.function.is_some() {
            "AWS_PROXY"
        } else {
            "AWS"
        };
        if integration_type != expected {
            problems.push(format!(
                "route {:?}'s integration {integration} is {integration_type}, not {expected} \
                 (functions return proxy responses; an AWS integration answers from its \
                 integration responses)",
                route.key
            ));
        }
        if matches!(route.key.as_str(), CONNECT | DISCONNECT) {
            continue;
        }
        if properties["RouteResponseSelectionExpression"] != "$default" {
            problems.push(format!(
                "route {:?} ({}) has no RouteResponseSelectionExpression $default: its replies \
                 would never reach the client",
                route.key, route.resource
            ));
        }
        if responses.get(&route.resource).map(String::as_str) != Some("$default") {
            problems.push(format!(
                "route {:?} ({}) has no AWS::ApiGatewayV2::RouteResponse with key $default",
                route.key, route.resource
            ));
        }
    }
    assert_no_problems(
        "template.yaml would not send back replies the local stack sends",
        &problems,
    );
}

#[test]
fn given_a_route_api_gateway_serves_itself_when_deployed_then_it_may_only_update_the_players_table()
{
    // The heartbeat route has no function: API Gateway calls DynamoDB with a role of its
    // own. That role must allow nothing but UpdateItem on the Players table, every
    // status must have an integration response, and the request template must name only
    // the two values the local stack substitutes.
    let template = Template::load();
    let mut problems = Vec::new();
    let mut seen = 0;
    for route in template_routes(&template) {
        if route.function.is_some() || route.binary == "integration:mock" {
            continue;
        }
        seen += 1;
        let integration = template.properties(&route.integration);
        if route.binary != "integration:dynamodb:UpdateItem" {
            problems.push(format!("route {:?} calls {}", route.key, route.binary));
        }
        if integration["IntegrationMethod"] != "POST" {
            problems.push(format!("{} is not a POST", route.integration));
        }
        let role = template.referenced(
            &integration["CredentialsArn"],
            "AWS::IAM::Role",
            &format!("{}'s CredentialsArn", route.integration),
        );
        let role_properties = template.properties(&role);
        let trust = &role_properties["AssumeRolePolicyDocument"]["Statement"];
        if trust.as_array().map(Vec::len) != Some(1)
            || trust[0]["Principal"]["Service"] != "apigateway.amazonaws.com"
        {
            problems.push(format!(
                "{role} is not assumed by API Gateway alone: {trust}"
            ));
        }
        let statements: Vec<&Value> = role_properties["Policies"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|policy| {
                policy["PolicyDocument"]["Statement"]
                    .as_array()
                    .into_iter()
                    .flatten()
            })
            .collect();
        let least = statements.len() == 1
            && statements[0]["Effect"] == "Allow"
            && statements[0]["Action"] == "dynamodb:UpdateItem"
            && statements[0]["Resource"] == json!({"Fn::GetAtt": "PlayersTable.Arn"});
        if !least || role_properties.get("ManagedPolicyArns").is_some() {
            problems.push(format!(
                "{role} may do more than UpdateItem on the Players table: {statements:?}"
            ));
        }
        let request = &integration["RequestTemplates"]["$default"]["Fn::Sub"];
        let names = cfn::references(&json!({"Fn::Sub": request}));
        let expected: BTreeSet<String> = ["PlayersTable", "HeartbeatTimeoutSeconds"]
            .into_iter()
            .map(str::to_owned)
            .collect();
        if names != expected {
            problems.push(format!(
                "{}'s request template names {names:?}, not {expected:?}",
                route.integration
            ));
        }
        let keys: BTreeSet<String> = template
            .of_type("AWS::ApiGatewayV2::IntegrationResponse")
            .into_iter()
            .filter(|(_, r)| {
                ref_name(&r["Properties"]["IntegrationId"]) == Some(route.integration.as_str())
            })
            .filter_map(|(_, r)| {
                r["Properties"]["IntegrationResponseKey"]
                    .as_str()
                    .map(str::to_owned)
            })
            .collect();
        let wanted: BTreeSet<String> = ["/2\\d\\d/", "/4\\d\\d/", "$default"]
            .into_iter()
            .map(str::to_owned)
            .collect();
        if keys != wanted {
            problems.push(format!(
                "{}'s integration responses are {keys:?}, not {wanted:?}",
                route.integration
            ));
        }
    }
    assert_eq!(
        seen, 1,
        "one route (heartbeat) is served without a function"
    );
    assert_no_problems(
        "a route API Gateway serves itself could do more than record a heartbeat",
        &problems,
    );
}

#[test]
fn given_a_connecting_client_when_connect_runs_then_the_authorizer_function_decides_first_and_only_there()
 {
    let template = Template::load();
    let mut problems = Vec::new();
    for route in template_routes(&template) {
        let properties = template.properties(&route.resource);
        if route.key != CONNECT {
            if properties["AuthorizationType"] != "NONE" {
                problems.push(format!(
                    "route {:?} has AuthorizationType {} (the local stack authorizes only $connect)",
                    route.key, properties["AuthorizationType"]
                ));
            }
            continue;
        }
        if properties["AuthorizationType"] != "CUSTOM" {
            problems.push(format!(
                "$connect has AuthorizationType {}, not CUSTOM (the REQUEST authorizer)",
                properties["AuthorizationType"]
            ));
            continue;
        }
        let authorizer = template.referenced(
            &properties["AuthorizerId"],
            "AWS::ApiGatewayV2::Authorizer",
            "$connect's AuthorizerId",
        );
        let authorizer_properties = template.properties(&authorizer);
        if authorizer_properties["AuthorizerType"] != "REQUEST" {
            problems.push(format!(
                "{authorizer} is a {} authorizer, not REQUEST",
                authorizer_properties["AuthorizerType"]
            ));
        }
        let function = template.referenced(
            &authorizer_properties["AuthorizerUri"],
            FUNCTION,
            &format!("{authorizer}'s AuthorizerUri"),
        );
        let expected = crate_of::<authorizer::Authorizer>();
        let binary = template.function_binary(&function);
        if binary != expected {
            problems.push(format!(
                "$connect's authorizer runs {binary}, but the local stack runs the {expected} crate's"
            ));
        }
    }
    assert_no_problems(
        "template.yaml's authorization of routes differs from the local stack's",
        &problems,
    );
}

#[test]
fn given_the_stage_when_deployed_then_its_deployment_waits_for_every_route_and_route_response() {
    let template = Template::load();
    let deployments = template.of_type("AWS::ApiGatewayV2::Deployment");
    let [(deployment, resource)] = deployments[..] else {
        panic!("template.yaml should declare exactly one AWS::ApiGatewayV2::Deployment");
    };
    let depends_on: BTreeSet<String> = match &resource["DependsOn"] {
        Value::String(one) => BTreeSet::from([one.clone()]),
        list => strings(list).into_iter().collect(),
    };
    let mut problems = Vec::new();
    for (id, _) in template
        .of_type(ROUTE)
        .into_iter()
        .chain(template.of_type(ROUTE_RESPONSE))
        .chain(template.of_type("AWS::ApiGatewayV2::IntegrationResponse"))
    {
        if !depends_on.contains(id) {
            problems.push(format!(
                "{deployment}'s DependsOn lacks {id}: a deployment made before it exists does not contain it"
            ));
        }
    }
    for (stage, resource) in template.of_type("AWS::ApiGatewayV2::Stage") {
        if ref_name(&resource["Properties"]["DeploymentId"]) != Some(deployment) {
            problems.push(format!("stage {stage} does not deploy {deployment}"));
        }
    }
    assert_no_problems("the deployed stage would miss routes", &problems);
}

#[test]
fn given_a_route_or_the_authorizer_when_api_gateway_invokes_its_function_then_a_permission_allows_it()
 {
    let template = Template::load();
    let allowed: BTreeSet<String> = template
        .of_type("AWS::Lambda::Permission")
        .into_iter()
        .filter(|(_, permission)| {
            let properties = &permission["Properties"];
            properties["Principal"] == "apigateway.amazonaws.com"
                && properties["Action"] == "lambda:InvokeFunction"
        })
        .filter_map(|(_, permission)| {
            ref_name(&permission["Properties"]["FunctionName"]).map(str::to_owned)
        })
        .collect();
    let mut invoked: BTreeSet<String> = template_routes(&template)
        .into_iter()
        .filter_map(|route| route.function)
        .collect();
    for (authorizer, resource) in template.of_type("AWS::ApiGatewayV2::Authorizer") {
        invoked.insert(template.referenced(
            &resource["Properties"]["AuthorizerUri"],
            FUNCTION,
            &format!("{authorizer}'s AuthorizerUri"),
        ));
    }
    let problems: Vec<String> = invoked
        .difference(&allowed)
        .map(|function| {
            format!("no AWS::Lambda::Permission lets apigateway.amazonaws.com invoke {function}")
        })
        .collect();
    assert_no_problems("API Gateway could not invoke every function", &problems);
}

#[test]
fn given_every_template_function_when_sam_builds_it_then_its_binary_is_a_workspace_crates_binary() {
    let template = Template::load();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let deployed: BTreeMap<String, String> = template
        .of_type(FUNCTION)
        .into_iter()
        .map(|(id, _)| (template.function_binary(id).to_owned(), id.to_owned()))
        .collect();
    let mut problems = Vec::new();
    for (binary, function) in &deployed {
        let manifest = root.join("functions").join(binary).join("Cargo.toml");
        let declares = std::fs::read_to_string(&manifest).is_ok_and(|text| {
            text.contains("[[bin]]") && text.contains(&format!("name = \"{binary}\""))
        });
        if !declares {
            problems.push(format!(
                "{function} deploys the binary {binary}, but functions/{binary}/Cargo.toml declares no such [[bin]]"
            ));
        }
    }
    let crates: BTreeSet<String> = std::fs::read_dir(root.join("functions"))
        .expect("functions/ is readable")
        .filter_map(Result::ok)
        .filter(|entry| entry.path().join("Cargo.toml").is_file())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    for name in &crates {
        if !deployed.contains_key(name) {
            problems.push(format!(
                "functions/{name} is a function crate that no AWS::Serverless::Function deploys"
            ));
        }
    }
    assert_no_problems(
        "template.yaml's functions and the workspace's function crates disagree",
        &problems,
    );
}

// --- Environment -------------------------------------------------------------------------------

/// A stand-in value for each variable the template sets: a parameter's default (or a
/// made-up value if it has none), a resource's logical id (what `!Ref` gives is a name),
/// anything else a made-up value. Enough for the readers to accept or refuse it.
fn stand_in_values(
    template: &Template,
    variables: &serde_json::Map<String, Value>,
) -> HashMap<String, String> {
    let parameters = &template.root()["Parameters"];
    variables
        .iter()
        .filter(|(_, value)| !never_deployed(value))
        .map(|(name, value)| {
            let stand_in = match ref_name(value) {
                Some(parameter) if parameters.get(parameter).is_some() => {
                    match &parameters[parameter]["Default"] {
                        Value::String(text) if !text.is_empty() => text.clone(),
                        Value::Number(number) => number.to_string(),
                        _ => format!("value-of-{parameter}"),
                    }
                }
                Some(resource) => resource.to_owned(),
                None => format!("value-of-{name}"),
            };
            (name.clone(), stand_in)
        })
        .collect()
}

/// `!Ref AWS::NoValue`: CloudFormation removes the variable; only `sam local invoke`
/// sees it (checked by `sam_env`).
fn never_deployed(value: &Value) -> bool {
    ref_name(value) == Some("AWS::NoValue")
}

/// True if `shared::config` reads `name`: leaving it out, or giving it a value no
/// variable accepts, changes what `Config::from_map` makes of `base`.
fn shared_config_reads(name: &str, base: &HashMap<String, String>) -> bool {
    let before = Config::from_map(base);
    let mut without = base.clone();
    without.remove(name);
    let mut garbled = base.clone();
    garbled.insert(name.to_owned(), "\u{1}not a value".to_owned());
    Config::from_map(&without) != before || Config::from_map(&garbled) != before
}

/// Every variable name the authorizer's reader asks for, in either mode and whatever
/// else is set.
fn authorizer_reads(base: &HashMap<String, String>) -> BTreeSet<String> {
    let asked = RefCell::new(BTreeSet::new());
    let mut header = base.clone();
    header.insert("AUTH_MODE".into(), "header".into());
    for vars in [base.clone(), header, HashMap::new()] {
        let reader = EnvReader::new(|name| {
            asked.borrow_mut().insert(name.to_owned());
            vars.get(name).cloned()
        });
        let _ = authorizer::AuthConfig::from_reader(reader, authorizer::Runtime::Lambda);
    }
    asked.into_inner()
}

/// Every variable name the matchmaking routes' own settings ask for.
fn matchmaking_reads(base: &HashMap<String, String>) -> BTreeSet<String> {
    let asked = RefCell::new(BTreeSet::new());
    let mut reader = EnvReader::new(|name| {
        asked.borrow_mut().insert(name.to_owned());
        base.get(name).cloned()
    });
    let _ = shared::matchmaking::MatchmakingSettings::read(&mut reader);
    drop(reader);
    asked.into_inner()
}

#[test]
fn given_the_globals_environment_when_shared_config_reads_it_then_nothing_it_requires_is_missing() {
    let template = Template::load();
    let values = stand_in_values(&template, template.global_variables());
    if let Err(error) = Config::from_map(&values) {
        panic!(
            "shared::config refuses what template.yaml's Globals set (with parameter defaults): {error}"
        );
    }
}

#[test]
fn given_the_globals_environment_when_each_variable_changes_then_shared_config_reads_every_one() {
    let template = Template::load();
    let values = stand_in_values(&template, template.global_variables());
    let problems: Vec<String> = template
        .global_variables()
        .iter()
        .filter(|(_, value)| !never_deployed(value))
        .map(|(name, _)| name)
        .filter(|name| !shared_config_reads(name, &values))
        .map(|name| format!("Globals set {name}, which shared::config never reads"))
        .collect();
    assert_no_problems(
        "template.yaml gives every function variables the code does not read",
        &problems,
    );
}

#[test]
fn given_a_functions_own_environment_when_it_starts_then_its_reader_reads_every_variable() {
    let template = Template::load();
    let mut problems = Vec::new();
    for (function, _) in template.of_type(FUNCTION) {
        let own = template.own_variables(function);
        if own.is_empty() {
            continue;
        }
        let mut all = template.global_variables().clone();
        all.extend(own.clone());
        let values = stand_in_values(&template, &all);
        let binary = template.function_binary(function);
        for name in own.keys() {
            let read = if binary == crate_of::<authorizer::AuthConfig>() {
                authorizer_reads(&values).contains(name)
            } else if binary == crate_of::<matchmaking::MatchmakingHandler>() {
                shared_config_reads(name, &values) || matchmaking_reads(&values).contains(name)
            } else {
                shared_config_reads(name, &values)
            };
            if !read {
                problems.push(format!(
                    "{function} sets {name}, which {binary}'s configuration never reads"
                ));
            }
        }
    }
    assert_no_problems(
        "template.yaml sets function variables the code does not read",
        &problems,
    );
}

/// The six tables ([`Table`]): the template's resource, the variable that names it, what
/// `shared::config` reads that variable into, and what creates it on DynamoDB Local.
trait TableKind: Copy {
    fn resource(self) -> &'static str;
    fn variable(self) -> &'static str;
    fn configured(self, config: &Config) -> &str;
    fn creator(self) -> &'static str;
}

impl TableKind for Table {
    fn resource(self) -> &'static str {
        match self {
            Self::Players => "PlayersTable",
            Self::Messages => "MessagesTable",
            Self::Placements => "PlacementsTable",
            Self::Subscriptions => "PresenceSubscriptionsTable",
            Self::Parties => "PartiesTable",
            Self::Friends => "FriendsTable",
        }
    }

    fn variable(self) -> &'static str {
        match self {
            Self::Players => "PLAYERS_TABLE",
            Self::Messages => "MESSAGES_TABLE",
            Self::Placements => "PLACEMENTS_TABLE",
            Self::Subscriptions => "SUBSCRIPTIONS_TABLE",
            Self::Parties => "PARTIES_TABLE",
            Self::Friends => "FRIENDS_TABLE",
        }
    }

    fn configured(self, config: &Config) -> &str {
        match self {
            Self::Players => &config.players_table,
            Self::Messages => &config.messages_table,
            Self::Placements => &config.placements_table,
            Self::Subscriptions => &config.subscriptions_table,
            Self::Parties => &config.parties_table,
            Self::Friends => &config.friends_table,
        }
    }

    fn creator(self) -> &'static str {
        match self {
            Self::Players => "create_players_table",
            Self::Messages => "create_messages_table",
            Self::Placements => "create_placements_table",
            Self::Subscriptions => "create_subscriptions_table",
            Self::Parties => "create_parties_table",
            Self::Friends => "create_friends_table",
        }
    }
}

#[test]
fn given_each_table_when_its_variable_is_read_then_it_names_that_tables_resource() {
    let template = Template::load();
    let globals = template.global_variables();
    let mut values = stand_in_values(&template, globals);
    let mut problems = Vec::new();
    for kind in Table::ALL {
        let variable = kind.variable();
        match globals.get(variable).and_then(ref_name) {
            Some(resource) if resource == kind.resource() => {}
            other => problems.push(format!(
                "{variable} should be !Ref {} in Globals; it is {other:?}",
                kind.resource()
            )),
        }
        values.insert(variable.to_owned(), format!("marker-{variable}"));
    }
    let config = Config::from_map(&values)
        .unwrap_or_else(|e| panic!("shared::config refuses the Globals: {e}"));
    for kind in Table::ALL {
        let expected = format!("marker-{}", kind.variable());
        if kind.configured(&config) != expected {
            problems.push(format!(
                "shared::config does not read {} into the {:?} table's setting",
                kind.variable(),
                kind
            ));
        }
    }
    assert_no_problems(
        "the table variables and the tables they name disagree",
        &problems,
    );
}

// --- Tables ------------------------------------------------------------------------------------

/// `(attribute, HASH or RANGE)`, in order.
type KeySchema = Vec<(String, String)>;

/// An index: its keys, projection type and projected non-key attributes.
type IndexShape = (KeySchema, String, BTreeSet<String>);

/// What of a table's definition the code relies on, in a form both sides give.
#[derive(Debug, PartialEq, Eq)]
struct TableShape {
    billing_mode: String,
    key_schema: KeySchema,
    attributes: BTreeSet<(String, String)>,
    /// Index name → (key schema, projection type, non-key attributes).
    indexes: BTreeMap<String, IndexShape>,
    /// The stream view type, if the stream is on.
    stream: Option<String>,
    /// The TTL attribute, if TTL is on.
    ttl: Option<String>,
}

fn template_key_schema(value: &Value) -> KeySchema {
    value
        .as_array()
        .into_iter()
        .flatten()
        .map(|key| (text(&key["AttributeName"]), text(&key["KeyType"])))
        .collect()
}

fn text(value: &Value) -> String {
    value
        .as_str()
        .map_or_else(|| value.to_string(), str::to_owned)
}

fn template_table_shape(template: &Template, id: &str) -> TableShape {
    let properties = template.properties(id);
    let mut indexes = BTreeMap::new();
    for list in ["GlobalSecondaryIndexes", "LocalSecondaryIndexes"] {
        for index in properties[list].as_array().into_iter().flatten() {
            let projection = &index["Projection"];
            indexes.insert(
                text(&index["IndexName"]),
                (
                    template_key_schema(&index["KeySchema"]),
                    text(&projection["ProjectionType"]),
                    strings(&projection["NonKeyAttributes"])
                        .into_iter()
                        .collect(),
                ),
            );
        }
    }
    let ttl = &properties["TimeToLiveSpecification"];
    TableShape {
        billing_mode: text(&properties["BillingMode"]),
        key_schema: template_key_schema(&properties["KeySchema"]),
        attributes: properties["AttributeDefinitions"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|a| (text(&a["AttributeName"]), text(&a["AttributeType"])))
            .collect(),
        indexes,
        stream: properties["StreamSpecification"]["StreamViewType"]
            .as_str()
            .map(str::to_owned),
        ttl: (ttl["Enabled"] == true)
            .then(|| ttl["AttributeName"].as_str().map(str::to_owned))
            .flatten(),
    }
}

fn described_key_schema(keys: &[aws_sdk_dynamodb::types::KeySchemaElement]) -> KeySchema {
    keys.iter()
        .map(|k| {
            (
                k.attribute_name().to_owned(),
                k.key_type().as_str().to_owned(),
            )
        })
        .collect()
}

fn described_table_shape(description: &TableDescription, ttl: Option<String>) -> TableShape {
    let mut indexes = BTreeMap::new();
    let projection = |p: Option<&aws_sdk_dynamodb::types::Projection>| {
        (
            p.and_then(|p| p.projection_type())
                .map_or_else(String::new, |t| t.as_str().to_owned()),
            p.map(|p| p.non_key_attributes().iter().cloned().collect())
                .unwrap_or_default(),
        )
    };
    for index in description.global_secondary_indexes() {
        let (kind, non_key) = projection(index.projection());
        indexes.insert(
            index.index_name().unwrap_or_default().to_owned(),
            (described_key_schema(index.key_schema()), kind, non_key),
        );
    }
    for index in description.local_secondary_indexes() {
        let (kind, non_key) = projection(index.projection());
        indexes.insert(
            index.index_name().unwrap_or_default().to_owned(),
            (described_key_schema(index.key_schema()), kind, non_key),
        );
    }
    TableShape {
        billing_mode: description
            .billing_mode_summary()
            .and_then(|b| b.billing_mode())
            .map_or_else(String::new, |b| b.as_str().to_owned()),
        key_schema: described_key_schema(description.key_schema()),
        attributes: description
            .attribute_definitions()
            .iter()
            .map(|a| {
                (
                    a.attribute_name().to_owned(),
                    a.attribute_type().as_str().to_owned(),
                )
            })
            .collect(),
        indexes,
        stream: description
            .stream_specification()
            .filter(|s| s.stream_enabled())
            .and_then(|s| s.stream_view_type())
            .map(|v| v.as_str().to_owned()),
        ttl,
    }
}

/// Creates `kind`'s table on DynamoDB Local with tables.rs, describes it, and compares
/// it with the template's resource, field by field.
async fn assert_table_is_the_templates(kind: Table) {
    let template = Template::load();
    let expected = template_table_shape(&template, kind.resource());

    let client = tests::dynamodb::dynamodb_local().await;
    let name = tests::dynamodb::unique_table_name(&kind.resource().to_ascii_lowercase());
    if let Err(error) = kind.create(&client, &name).await {
        panic!(
            "{} could not create {name} on DynamoDB Local: {}",
            kind.creator(),
            tests::dynamodb::error_chain(&error)
        );
    }
    let description = client
        .describe_table()
        .table_name(&name)
        .send()
        .await
        .unwrap_or_else(|e| panic!("describing {name}: {}", tests::dynamodb::error_chain(&e)))
        .table
        .unwrap_or_else(|| panic!("{name} has no description"));
    let ttl = client
        .describe_time_to_live()
        .table_name(&name)
        .send()
        .await
        .unwrap_or_else(|e| {
            panic!(
                "describing {name}'s TTL: {}",
                tests::dynamodb::error_chain(&e)
            )
        })
        .time_to_live_description
        .filter(|d| {
            matches!(
                d.time_to_live_status(),
                Some(TimeToLiveStatus::Enabled | TimeToLiveStatus::Enabling)
            )
        })
        .and_then(|d| d.attribute_name);
    let created = described_table_shape(&description, ttl);

    let mut problems = Vec::new();
    let mut compare = |what: &str, template: String, code: String| {
        if template != code {
            problems.push(format!(
                "{what}: template.yaml has {template}, {} creates {code}",
                kind.creator()
            ));
        }
    };
    compare(
        "billing mode",
        expected.billing_mode.clone(),
        created.billing_mode.clone(),
    );
    compare(
        "key schema",
        format!("{:?}", expected.key_schema),
        format!("{:?}", created.key_schema),
    );
    compare(
        "attribute definitions",
        format!("{:?}", expected.attributes),
        format!("{:?}", created.attributes),
    );
    compare(
        "secondary indexes (name: keys, projection, non-key attributes)",
        format!("{:?}", expected.indexes),
        format!("{:?}", created.indexes),
    );
    compare(
        "stream view type",
        format!("{:?}", expected.stream),
        format!("{:?}", created.stream),
    );
    compare(
        "TTL attribute",
        format!("{:?}", expected.ttl),
        format!("{:?}", created.ttl),
    );
    assert_no_problems(
        &format!(
            "{} in template.yaml and the table adapters/aws/src/dynamodb/tables.rs creates differ",
            kind.resource()
        ),
        &problems,
    );
}

#[test]
fn given_the_template_tables_when_listed_then_they_are_the_six_the_code_creates() {
    let template = Template::load();
    let declared: BTreeSet<&str> = template
        .of_type(TABLE)
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    let known: BTreeSet<&str> = Table::ALL.iter().map(|kind| kind.resource()).collect();
    assert_eq!(
        declared, known,
        "template.yaml's tables are not the ones adapters/aws/src/dynamodb/tables.rs creates \
         (and this suite compares)"
    );
}

#[tokio::test]
async fn given_the_players_table_when_created_for_dynamodb_local_then_it_is_the_templates() {
    assert_table_is_the_templates(Table::Players).await;
}

#[tokio::test]
async fn given_the_messages_table_when_created_for_dynamodb_local_then_it_is_the_templates() {
    assert_table_is_the_templates(Table::Messages).await;
}

#[tokio::test]
async fn given_the_placements_table_when_created_for_dynamodb_local_then_it_is_the_templates() {
    assert_table_is_the_templates(Table::Placements).await;
}

#[tokio::test]
async fn given_the_subscriptions_table_when_created_for_dynamodb_local_then_it_is_the_templates() {
    assert_table_is_the_templates(Table::Subscriptions).await;
}

#[tokio::test]
async fn given_the_parties_table_when_created_for_dynamodb_local_then_it_is_the_templates() {
    assert_table_is_the_templates(Table::Parties).await;
}

#[tokio::test]
async fn given_the_friends_table_when_created_for_dynamodb_local_then_it_is_the_templates() {
    assert_table_is_the_templates(Table::Friends).await;
}

// --- The Messages stream -----------------------------------------------------------------------

/// The one event source mapping on the Messages table's stream.
fn messages_stream_mapping(template: &Template) -> (String, Value) {
    let mappings: Vec<(&str, &Value)> = template
        .of_type("AWS::Lambda::EventSourceMapping")
        .into_iter()
        .filter(|(_, mapping)| {
            cfn::references(&mapping["Properties"]["EventSourceArn"])
                .contains(Table::Messages.resource())
        })
        .collect();
    let [(id, mapping)] = mappings[..] else {
        panic!(
            "template.yaml should have exactly one AWS::Lambda::EventSourceMapping on {}'s stream, \
             it has {}",
            Table::Messages.resource(),
            mappings.len()
        );
    };
    (id.to_owned(), mapping["Properties"].clone())
}

/// The records the Messages stream carries, as Lambda hands them over: an INSERT of a
/// message (built by the local stack's record builder from the code's item mapping), and
/// of an inbox's epoch item (the message's keys with `seq` = `EPOCH_ITEM_SEQ`), plus the
/// MODIFY and REMOVE (TTL) of each.
fn stream_records() -> Vec<(&'static str, Value, bool)> {
    use aws_adapters::dynamodb::message_item::{EPOCH_ITEM_SEQ, attr};
    use shared::domain::{MessageId, PlayerId, Seq};
    use shared::messaging::{MessageKind, StoredMessage};

    let message = StoredMessage {
        seq: Seq::new(12).expect("a valid seq"),
        epoch: Seq::new(1).expect("a valid seq"),
        message_id: MessageId::deterministic(&["template-drift"]),
        recipient_id: PlayerId::parse("bob").expect("a valid player id"),
        sender_id: "alice".into(),
        kind: MessageKind::Chat,
        payload: r#"{"type":"message","from":"alice","message":{"text":"gg"}}"#.into(),
        created_at: 1_795_323_600_123,
        expire_at_secs: 1_795_410_000,
        replay_until_secs: None,
    };
    let arn = local::stream::record::local_stream_arn("Messages");
    let insert = local::stream::record::insert_record(
        &message,
        &local::stream::record::sequence_number(1),
        &arn,
    );
    let mut epoch = insert.clone();
    let epoch_seq = json!({ "N": EPOCH_ITEM_SEQ.to_string() });
    epoch["dynamodb"]["Keys"][attr::SEQ] = epoch_seq.clone();
    epoch["dynamodb"]["NewImage"] = json!({
        attr::RECIPIENT_ID: { "S": "bob" },
        attr::SEQ: epoch_seq,
        attr::EPOCH: { "N": "1" },
        attr::EXPIRE_AT: { "N": "1795410000" },
    });
    let renamed = |record: &Value, event: &str| {
        let mut record = record.clone();
        record["eventName"] = json!(event);
        record
    };
    vec![
        ("the INSERT of a message (seq 12)", insert.clone(), true),
        (
            "the INSERT of an inbox's epoch item (seq 0)",
            epoch.clone(),
            false,
        ),
        ("the MODIFY of a message", renamed(&insert, "MODIFY"), false),
        (
            "the REMOVE of a message (TTL)",
            renamed(&insert, "REMOVE"),
            false,
        ),
        (
            "the MODIFY of an epoch item",
            renamed(&epoch, "MODIFY"),
            false,
        ),
        (
            "the REMOVE of an epoch item",
            renamed(&epoch, "REMOVE"),
            false,
        ),
    ]
}

#[test]
fn given_the_messages_stream_when_records_arrive_then_the_mapping_passes_only_inserts_of_messages()
{
    let template = Template::load();
    let (id, properties) = messages_stream_mapping(&template);
    let patterns: Vec<Value> = properties["FilterCriteria"]["Filters"]
        .as_array()
        .unwrap_or_else(|| panic!("{id} has no FilterCriteria.Filters"))
        .iter()
        .map(|filter| {
            let pattern = filter["Pattern"]
                .as_str()
                .unwrap_or_else(|| panic!("{id}'s filter pattern is not a JSON string"));
            serde_json::from_str(pattern)
                .unwrap_or_else(|e| panic!("{id}'s filter pattern is not JSON ({e}): {pattern}"))
        })
        .collect();
    let mut problems = Vec::new();
    for (what, record, wanted) in stream_records() {
        // A record passes when any one filter matches it.
        let passes = patterns.iter().any(|p| filter::matches(p, &record));
        if passes != wanted {
            problems.push(format!(
                "{what} {} on-message-inserted, but it should {}",
                if passes {
                    "reaches"
                } else {
                    "is dropped before"
                },
                if wanted { "reach it" } else { "be dropped" },
            ));
        }
    }
    assert_no_problems(
        &format!(
            "{id}'s FilterCriteria ({}) filters the Messages stream wrongly",
            patterns
                .iter()
                .map(Value::to_string)
                .collect::<Vec<_>>()
                .join(" or ")
        ),
        &problems,
    );
}

#[test]
fn given_the_messages_stream_when_a_record_fails_then_the_mapping_retries_only_the_failures() {
    let template = Template::load();
    let (id, properties) = messages_stream_mapping(&template);
    let mut problems = Vec::new();
    if !strings(&properties["FunctionResponseTypes"])
        .contains(&"ReportBatchItemFailures".to_owned())
    {
        problems.push(format!(
            "{id} lacks FunctionResponseTypes: [ReportBatchItemFailures]; on-message-inserted \
             reports failed records, and without it a whole batch is retried"
        ));
    }
    let function = template.referenced(&properties["FunctionName"], FUNCTION, "FunctionName");
    let binary = template.function_binary(&function);
    let expected = crate_of::<on_message_inserted::MessageInsertedHandler>().replace('_', "-");
    if binary != expected {
        problems.push(format!(
            "{id} invokes {binary}, but the local stack feeds the stream to {expected}"
        ));
    }
    if properties["EventSourceArn"] != json!({ "Fn::GetAtt": "MessagesTable.StreamArn" }) {
        problems.push(format!(
            "{id}'s EventSourceArn is {}, not the Messages table's stream",
            properties["EventSourceArn"]
        ));
    }
    assert_no_problems(
        &format!("{id} is not the mapping the code relies on"),
        &problems,
    );
}
