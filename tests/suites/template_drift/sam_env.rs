//! `local/sam-env.json`, the `--env-vars` file of `sam local invoke`, against template.yaml
//! and the code (README.md, "With Docker: sam local invoke").
//!
//! What SAM does with it (SAM CLI 1.170, `samcli/local/lambdafn/env_vars.py`): a function
//! gets only the variables its template declares (the Globals and its own), each with the
//! file's value for it, else the template's as SAM resolves it: a parameter's default, a
//! resource's logical id, "" for what it does not resolve (`AWS::NoValue`). A variable the
//! template does not declare is dropped without a word; so is a `Parameters` entry for a
//! variable a function does not declare, while one it does declare is set for every
//! function. Hence the file's shape, checked here: one entry per function, only what that
//! function reads, everything else left to the template only where that is what the local
//! stack uses too.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde_json::{Map, Value};
use shared::config::{Config, EnvReader};

use local::sam_env::{self, CONTAINER_HOST};

use super::cfn::{Template, ref_name};
use super::{
    FUNCTION, assert_no_problems, authorizer_reads, matchmaking_reads, shared_config_reads,
};

/// The ports the README starts them on.
const DYNAMODB_LOCAL_PORT: u16 = 8000;
const LOCAL_STACK_PORT: u16 = 3001;
/// The variable the AWS SDK reads for every service without its own.
const GLOBAL_ENDPOINT: &str = "AWS_ENDPOINT_URL";
/// The SDK's service-specific variable of each service (`AWS_ENDPOINT_URL_<ID>`).
const DYNAMODB: &str = "DYNAMODB";
const MANAGEMENT_API: &str = "APIGATEWAYMANAGEMENTAPI";
/// A binary that reads no configuration at all (its main.rs builds nothing).
const READS_NOTHING: &str = "default";

/// The file, as logical id → variable → value.
fn env_file() -> BTreeMap<String, BTreeMap<String, String>> {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../local/sam-env.json"
    ))
    .expect("local/sam-env.json is readable");
    sam_env::parse_env_file(&text).unwrap_or_else(|e| panic!("local/sam-env.json: {e}"))
}

fn declared(template: &Template, id: &str) -> Map<String, Value> {
    sam_env::declared(template.root(), id)
}

fn sam_value(template: &Template, value: &Value) -> Option<String> {
    sam_env::sam_value(template.root(), value)
}

/// What the function's container sees of its own variables.
fn container_env(
    template: &Template,
    id: &str,
    entry: &BTreeMap<String, String>,
) -> HashMap<String, String> {
    sam_env::function_environment(template.root(), id, entry)
        .into_iter()
        .collect()
}

/// The AWS services the function's code calls (the SDK's ids), from its policies'
/// actions: what it is allowed to call is what it calls. `kms` is SSM's own decryption
/// of the authorizer's secret and `sqs` Lambda's on-failure destination: neither is a
/// call of the code.
fn services(template: &Template, id: &str) -> BTreeSet<&'static str> {
    fn actions(value: &Value, found: &mut BTreeSet<String>) {
        match value {
            Value::Object(object) => {
                for (key, value) in object {
                    match (key.as_str(), value) {
                        ("Action", Value::String(action)) => {
                            found.insert(action.clone());
                        }
                        ("Action", Value::Array(list)) => {
                            found.extend(list.iter().filter_map(|a| a.as_str().map(str::to_owned)));
                        }
                        _ => actions(value, found),
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|v| actions(v, found)),
            _ => {}
        }
    }
    let mut found = BTreeSet::new();
    actions(&template.properties(id)["Policies"], &mut found);
    found
        .iter()
        .filter_map(
            |action| match action.split(':').next().unwrap_or_default() {
                "dynamodb" => Some(DYNAMODB),
                "execute-api" => Some(MANAGEMENT_API),
                "events" => Some("EVENTBRIDGE"),
                "gamelift" => Some("GAMELIFT"),
                "ssm" => Some("SSM"),
                "kms" | "sqs" => None,
                other => {
                    panic!("{id} may call {other}: which SDK service is that? teach services()")
                }
            },
        )
        .collect()
}

/// The services function `id` calls when run with `env`: the authorizer builds an AWS
/// client only to read its HS256 secret parameter (its main.rs).
fn services_called(
    template: &Template,
    id: &str,
    env: &HashMap<String, String>,
) -> BTreeSet<&'static str> {
    let mut called = services(template, id);
    if template.function_binary(id) == "authorizer"
        && env
            .get("JWT_HS256_SECRET_PARAMETER")
            .is_none_or(|p| p.trim().is_empty())
    {
        called.remove("SSM");
    }
    called
}

/// The endpoint variables a function calling `services` reads: each service's own,
/// and the global one, which aws-config reads for every client (and warns about when
/// empty, as SAM leaves it unless the file sets it).
fn endpoint_variables(services: &BTreeSet<&'static str>) -> BTreeSet<String> {
    let mut read: BTreeSet<String> = services
        .iter()
        .map(|service| format!("{GLOBAL_ENDPOINT}_{service}"))
        .collect();
    if !services.is_empty() {
        read.insert(GLOBAL_ENDPOINT.to_owned());
    }
    read
}

/// True if function `id`'s configuration reads `name` (given the rest of `env`).
fn config_reads(template: &Template, id: &str, name: &str, env: &HashMap<String, String>) -> bool {
    match template.function_binary(id) {
        READS_NOTHING => false,
        "authorizer" => authorizer_reads(env).contains(name),
        "matchmaking" => shared_config_reads(name, env) || matchmaking_reads(env).contains(name),
        _ => shared_config_reads(name, env),
    }
}

#[test]
fn given_the_env_file_then_it_has_one_entry_per_function_of_the_template_and_nothing_else() {
    let template = Template::load();
    let file = env_file();
    let functions: BTreeSet<String> = template
        .of_type(FUNCTION)
        .into_iter()
        .map(|(id, _)| id.to_owned())
        .collect();
    let entries: BTreeSet<String> = file.keys().cloned().collect();
    let mut problems: Vec<String> = functions
        .difference(&entries)
        .map(|id| format!("{id} has no entry (give it one, even empty: {{}})"))
        .collect();
    problems.extend(entries.difference(&functions).map(|id| {
        if id == "Parameters" {
            "a Parameters entry sets a variable for every function that declares it, read or not: give each function its own".to_owned()
        } else {
            format!("{id} is not a function of template.yaml")
        }
    }));
    assert_no_problems(
        "local/sam-env.json and template.yaml's functions disagree",
        &problems,
    );
}

#[test]
fn given_each_functions_entry_then_every_variable_is_declared_for_it_by_the_template_and_read_by_it()
 {
    let template = Template::load();
    let mut problems = Vec::new();
    for (id, entry) in env_file() {
        if template.resources().get(&id).is_none() {
            continue; // the test above names it
        }
        let declared = declared(&template, &id);
        let env = container_env(&template, &id, &entry);
        let endpoints = endpoint_variables(&services_called(&template, &id, &env));
        for name in entry.keys() {
            if !declared.contains_key(name) {
                problems.push(format!(
                    "{id} sets {name}, which template.yaml does not declare for it: SAM drops it"
                ));
            } else if !endpoints.contains(name) && !config_reads(&template, &id, name, &env) {
                problems.push(format!("{id} sets {name}, which it does not read"));
            }
        }
    }
    assert_no_problems(
        "local/sam-env.json sets what SAM drops or nobody reads",
        &problems,
    );
}

#[test]
fn given_each_function_in_a_container_then_it_runs_with_the_local_stacks_configuration() {
    let template = Template::load();
    let stack = local::Settings::default();
    let local_config = stack
        .config()
        .expect("the local stack's defaults are valid");
    let local_auth = stack
        .auth_config()
        .expect("the local stack's auth is valid");
    let mut problems = Vec::new();
    for (id, entry) in env_file() {
        if template.resources().get(&id).is_none() {
            continue;
        }
        let env = container_env(&template, &id, &entry);
        // A variable read, left to the template, with a value SAM may not resolve.
        for (name, value) in declared(&template, &id) {
            if !entry.contains_key(&name)
                && sam_value(&template, &value).is_none()
                && config_reads(&template, &id, &name, &env)
            {
                problems.push(format!(
                    "{id} reads {name}, whose template value {value} SAM may not resolve: set it"
                ));
            }
        }
        match template.function_binary(&id) {
            READS_NOTHING => {}
            "authorizer" => {
                let reader = EnvReader::new(|name| env.get(name).cloned());
                match authorizer::AuthConfig::from_reader(reader, authorizer::Runtime::Lambda) {
                    Ok(auth) if auth == local_auth => {}
                    Ok(auth) => problems.push(format!(
                        "{id} would check {auth:?}; the local stack {local_auth:?}"
                    )),
                    Err(error) => problems.push(format!("{id} would not start: {error}")),
                }
            }
            binary => {
                match Config::from_map(&env) {
                    Ok(config) if config == local_config => {}
                    Ok(config) => problems.push(format!(
                        "{id} would run with {config:?}; the local stack with {local_config:?}"
                    )),
                    Err(error) => problems.push(format!("{id} would not start: {error}")),
                }
                if binary == "matchmaking" {
                    let mut reader = EnvReader::new(|name| env.get(name).cloned());
                    let settings = shared::matchmaking::MatchmakingSettings::read(&mut reader);
                    // The local stack without --matchmaking-rule-set has no configuration.
                    if !settings.configurations.is_empty() {
                        problems.push(format!(
                            "{id} would offer {:?}; the local stack (no rule set) none",
                            settings.configurations
                        ));
                    }
                }
            }
        }
    }
    assert_no_problems(
        "in a container, functions would not run as the local stack runs them",
        &problems,
    );
}

#[test]
fn given_each_function_then_every_aws_service_it_calls_goes_to_the_host_not_to_aws() {
    let template = Template::load();
    let stage = local::Settings::default().stage;
    let dynamodb = format!("http://{CONTAINER_HOST}:{DYNAMODB_LOCAL_PORT}");
    let stack = format!("http://{CONTAINER_HOST}:{LOCAL_STACK_PORT}");
    let management = format!("{stack}/{stage}");
    let mut problems = Vec::new();
    for (id, entry) in env_file() {
        if template.resources().get(&id).is_none() {
            continue;
        }
        let env = container_env(&template, &id, &entry);
        let services = services_called(&template, &id, &env);
        if !services.is_empty() && entry.get(GLOBAL_ENDPOINT) != Some(&stack) {
            problems.push(format!(
                "{id} calls AWS and its {GLOBAL_ENDPOINT} is {:?}, not the stack's {stack}",
                entry.get(GLOBAL_ENDPOINT)
            ));
        }
        for service in services {
            let own = format!("{GLOBAL_ENDPOINT}_{service}");
            // DynamoDB is DynamoDB Local; the @connections API the stack's, with its stage
            // (the adapter takes no other); the rest (GameLift, EventBridge) the stack's port.
            let (variable, expected) = match service {
                DYNAMODB => (own.as_str(), dynamodb.as_str()),
                MANAGEMENT_API => (own.as_str(), management.as_str()),
                _ if entry.contains_key(&own) => (own.as_str(), stack.as_str()),
                _ => (GLOBAL_ENDPOINT, stack.as_str()),
            };
            match entry.get(variable) {
                Some(value) if value == expected => {}
                Some(value) => {
                    problems.push(format!("{id}: {variable}={value}, expected {expected}"))
                }
                None => problems.push(format!(
                    "{id} calls {service} and sets no {variable}: it would reach AWS"
                )),
            }
        }
    }
    assert_no_problems("in a container, functions would call AWS", &problems);
}

#[test]
fn given_the_templates_never_deployed_variables_then_each_is_an_sdk_endpoint_the_env_file_sets() {
    let template = Template::load();
    let file = env_file();
    let mut problems = Vec::new();
    for (name, value) in template.global_variables() {
        if ref_name(value) != Some("AWS::NoValue") {
            continue;
        }
        if !name.starts_with(GLOBAL_ENDPOINT) {
            problems.push(format!("Globals declare {name} as AWS::NoValue: only SDK endpoints are, for sam local invoke"));
        } else if !file.values().any(|entry| entry.contains_key(name)) {
            problems.push(format!(
                "Globals declare {name} for sam local invoke, and local/sam-env.json never sets it"
            ));
        }
    }
    assert_no_problems(
        "template.yaml declares variables nothing deploys or sets",
        &problems,
    );
}

#[test]
fn given_the_pinned_sam_cli_when_it_resolves_the_env_file_then_each_function_gets_what_local_sam_env_says()
 {
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let python = repo.join(".tools/venv/bin/python");
    if !python.is_file() {
        eprintln!("skipped: no SAM CLI in .tools/venv (scripts/test.sh installs it)");
        return;
    }
    // A clean environment: SAM gives a declared variable the shell's value over the
    // template's, so a developer's exported GAME would change the answer.
    let output = std::process::Command::new(&python)
        .arg("scripts/sam-env.py")
        .current_dir(&repo)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", std::env::temp_dir())
        .env("SAM_CLI_TELEMETRY", "0")
        .output()
        .expect("python runs");
    assert!(output.status.success(), "scripts/sam-env.py: {output:?}");
    let sam: BTreeMap<String, BTreeMap<String, String>> =
        serde_json::from_slice(&output.stdout).expect("scripts/sam-env.py prints JSON");
    let template = Template::load();
    let mut problems = Vec::new();
    for (id, entry) in env_file() {
        let Some(given) = sam.get(&id) else {
            problems.push(format!("SAM gives {id} nothing: is it a function?"));
            continue;
        };
        for (name, value) in container_env(&template, &id, &entry) {
            match given.get(&name) {
                Some(sam_value) if *sam_value == value => {}
                other => problems.push(format!(
                    "{id}.{name}: local::sam_env says {value:?}, SAM gives {other:?}"
                )),
            }
        }
        for name in entry.keys().filter(|name| !given.contains_key(*name)) {
            problems.push(format!("{id}.{name}: SAM drops it"));
        }
    }
    assert_no_problems("SAM CLI and local::sam_env disagree", &problems);
}
