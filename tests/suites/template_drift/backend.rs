//! The backend API: its HTTP API and route in the template are what the local stack serves
//! (`local::backend_api::ROUTE_KEY`, the payload 2.0 events it builds), every route needs
//! SigV4 (AWS_IAM). What its function may call is checked with every other function's
//! (`calls_grants.rs`).

use super::cfn::{Template, ref_name};
use super::{FUNCTION, assert_no_problems};

const HTTP_API: &str = "AWS::Serverless::HttpApi";

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
