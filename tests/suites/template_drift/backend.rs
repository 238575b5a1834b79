//! The backend API: its HTTP API and route in the template are what the local stack serves
//! (`local::backend_api::ROUTE_KEY`, the payload 2.0 events it builds), every route needs
//! SigV4 (AWS_IAM), and its function may do no more in DynamoDB than its handlers do.

use std::collections::BTreeSet;

use serde_json::Value;

use super::cfn::{Template, ref_name, strings};
use super::{FUNCTION, assert_no_problems};

const HTTP_API: &str = "AWS::Serverless::HttpApi";

/// What `backend-api` calls, per table (its round trips: docs/architecture.md#the-backend-api).
fn allowed() -> BTreeSet<(String, String)> {
    [
        ("PlayersTable", "dynamodb:GetItem"),
        ("PlayersTable", "dynamodb:BatchGetItem"),
        ("PlayersTable", "dynamodb:UpdateItem"),
        ("MessagesTable", "dynamodb:Query"),
        ("MessagesTable", "dynamodb:PutItem"),
        ("MessagesTable", "dynamodb:UpdateItem"),
        ("PartiesTable", "dynamodb:GetItem"),
    ]
    .into_iter()
    .map(|(table, action)| (table.to_owned(), action.to_owned()))
    .collect()
}

#[test]
fn given_the_backend_api_when_deployed_then_its_one_route_is_the_local_stacks_signed_with_iam_to_backend_api()
 {
    let template = Template::load();
    let mut problems = Vec::new();
    let apis = template.of_type(HTTP_API);
    if apis.len() != 1 {
        problems.push(format!("{} HTTP APIs, not one", apis.len()));
    }
    for (id, api) in &apis {
        let auth = &api["Properties"]["Auth"];
        if auth["DefaultAuthorizer"] != "AWS_IAM" || auth["EnableIamAuthorizer"] != true {
            problems.push(format!("{id} does not default to AWS_IAM: {auth}"));
        }
    }
    let mut routes = Vec::new();
    for (function, resource) in template.of_type(FUNCTION) {
        let events = resource["Properties"]["Events"]
            .as_object()
            .cloned()
            .unwrap_or_default();
        for (name, event) in events.iter().filter(|(_, e)| e["Type"] == "HttpApi") {
            let properties = &event["Properties"];
            let key = format!(
                "{} {}",
                properties["Method"].as_str().unwrap_or("?"),
                properties["Path"].as_str().unwrap_or("?")
            );
            routes.push((function.to_owned(), key.clone()));
            if key != local::backend_api::ROUTE_KEY {
                problems.push(format!(
                    "{function}.{name} is {key}; the local stack serves {}",
                    local::backend_api::ROUTE_KEY
                ));
            }
            if properties["Auth"]["Authorizer"] != "AWS_IAM" {
                problems.push(format!("{function}.{name} is not signed with AWS_IAM"));
            }
            if properties["PayloadFormatVersion"] != "2.0" {
                problems.push(format!(
                    "{function}.{name} is not payload 2.0, the events lambda_http reads here"
                ));
            }
            let api = ref_name(&properties["ApiId"]).unwrap_or("?");
            if !apis.iter().any(|(id, _)| *id == api) {
                problems.push(format!("{function}.{name} is on {api}, not the HTTP API"));
            }
            if template.function_binary(function) != "backend-api" {
                problems.push(format!(
                    "{function} serves the backend API but is not backend-api"
                ));
            }
        }
    }
    if routes.len() != 1 {
        problems.push(format!("the backend API's routes: {routes:?}, not one"));
    }
    assert_no_problems(
        "the backend API in template.yaml is not the one the code serves",
        &problems,
    );
}

#[test]
fn given_the_backend_api_function_when_deployed_then_it_may_only_make_its_own_dynamodb_calls() {
    let template = Template::load();
    let (function, _) = template
        .of_type(FUNCTION)
        .into_iter()
        .find(|(id, _)| template.function_binary(id) == "backend-api")
        .expect("a function deploys backend-api");
    let mut granted = BTreeSet::new();
    let mut problems = Vec::new();
    for policy in template.properties(function)["Policies"]
        .as_array()
        .into_iter()
        .flatten()
    {
        for statement in policy["Statement"].as_array().into_iter().flatten() {
            if statement["Effect"] != "Allow" {
                continue;
            }
            let tables: Vec<String> = match &statement["Resource"] {
                Value::Object(_) => vec![statement["Resource"].clone()],
                Value::Array(many) => many.clone(),
                other => vec![other.clone()],
            }
            .iter()
            .map(|resource| match resource {
                Value::Object(map) if map.contains_key("Fn::GetAtt") => {
                    let target = match &map["Fn::GetAtt"] {
                        Value::String(dotted) => dotted.clone(),
                        parts => strings(parts).join("."),
                    };
                    target.trim_end_matches(".Arn").to_owned()
                }
                other => format!("{other}"),
            })
            .collect();
            let actions = match &statement["Action"] {
                Value::String(one) => vec![one.clone()],
                many => strings(many),
            };
            for table in &tables {
                for action in &actions {
                    granted.insert((table.clone(), action.clone()));
                }
            }
        }
    }
    let allowed = allowed();
    let extra: Vec<_> = granted.difference(&allowed).collect();
    if !extra.is_empty() {
        problems.push(format!("{function} is also granted {extra:?}"));
    }
    let missing: Vec<_> = allowed.difference(&granted).collect();
    if !missing.is_empty() {
        problems.push(format!("{function} lacks {missing:?}"));
    }
    assert_no_problems(
        "backend-api's policy is not exactly what its handlers call",
        &problems,
    );
}
