//! What `sam local invoke --env-vars local/sam-env.json` gives a function's container,
//! by SAM CLI's rules (1.170: `samcli/local/lambdafn/env_vars.py`, no Docker needed to
//! read them): only the variables the template declares for the function (the Globals
//! and its own), each with the file's value for it, else the template's as SAM resolves
//! it: a parameter's default, a resource's logical id, "" for `AWS::NoValue`. A variable
//! the template does not declare is dropped. SAM adds its own `AWS_*` (credentials and
//! region from the caller's AWS session, the function's name, memory and timeout).
//!
//! The env file's tests (`tests/suites/template_drift/sam_env.rs`) and the test that runs
//! each function's binary with this environment (`tools/tests/sam_local.rs`) share it.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

/// The env file, as the repository has it.
pub const ENV_FILE: &str = include_str!("../sam-env.json");

/// How a container reaches the host in the env file (Docker Desktop has it; on Linux
/// `sam local invoke --add-host host.docker.internal:host-gateway` adds it).
pub const CONTAINER_HOST: &str = "host.docker.internal";

/// The env file as logical id → variable → value; an error names what SAM would refuse
/// (an entry that is not an object) or Lambda would (a value that is not a string).
pub fn parse_env_file(text: &str) -> Result<BTreeMap<String, BTreeMap<String, String>>, String> {
    let root: Map<String, Value> =
        serde_json::from_str(text).map_err(|e| format!("not a JSON object: {e}"))?;
    root.into_iter()
        .map(|(function, entry)| {
            let entry = entry
                .as_object()
                .ok_or_else(|| format!("{function}'s entry is not an object"))?;
            let variables = entry
                .iter()
                .map(|(name, value)| match value {
                    Value::String(text) => Ok((name.clone(), text.clone())),
                    other => Err(format!("{function}.{name} is {other}, not a string")),
                })
                .collect::<Result<_, _>>()?;
            Ok((function, variables))
        })
        .collect()
}

/// Every variable `template` declares for function `id` (the Globals, then its own).
pub fn declared(template: &Value, id: &str) -> Map<String, Value> {
    let mut all = template["Globals"]["Function"]["Environment"]["Variables"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    if let Some(own) =
        template["Resources"][id]["Properties"]["Environment"]["Variables"].as_object()
    {
        all.extend(own.clone());
    }
    all
}

/// What SAM gives a declared variable the file leaves alone: a parameter's default, a
/// resource's logical id, "" for `AWS::NoValue`; `None` for a value that depends on
/// conditions or substitutions (SAM may or may not resolve it).
pub fn sam_value(template: &Value, value: &Value) -> Option<String> {
    let reference = match value {
        Value::String(text) => return Some(text.clone()),
        Value::Number(number) => return Some(number.to_string()),
        Value::Bool(flag) => return Some(flag.to_string()),
        Value::Object(object) if object.len() == 1 => object.get("Ref")?.as_str()?,
        _ => return None,
    };
    if reference == "AWS::NoValue" {
        return Some(String::new());
    }
    Some(match &template["Parameters"][reference] {
        Value::Null => reference.to_owned(),
        parameter => match &parameter["Default"] {
            Value::String(text) => text.clone(),
            Value::Number(number) => number.to_string(),
            _ => String::new(),
        },
    })
}

/// Function `id`'s own variables in its container: the file's `entry`, and SAM's value
/// of the others; one SAM may not resolve is left out.
pub fn function_environment(
    template: &Value,
    id: &str,
    entry: &BTreeMap<String, String>,
) -> BTreeMap<String, String> {
    declared(template, id)
        .iter()
        .filter_map(|(name, value)| {
            let value = entry
                .get(name)
                .cloned()
                .or_else(|| sam_value(template, value))?;
            Some((name.clone(), value))
        })
        .collect()
}

/// The `AWS_*` variables SAM itself adds for function `id` (beside the Runtime API's),
/// with the credentials and region of the caller's session.
pub fn sam_variables(
    id: &str,
    region: &str,
    access_key_id: &str,
    secret_access_key: &str,
) -> BTreeMap<String, String> {
    [
        ("AWS_SAM_LOCAL", "true"),
        ("AWS_LAMBDA_FUNCTION_NAME", id),
        ("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "128"),
        ("AWS_LAMBDA_FUNCTION_TIMEOUT", "10"),
        ("AWS_LAMBDA_FUNCTION_HANDLER", "bootstrap"),
        ("AWS_LAMBDA_FUNCTION_VERSION", "$LATEST"),
        ("AWS_LAMBDA_LOG_STREAM_NAME", "$LATEST"),
        ("AWS_LAMBDA_LOG_FORMAT", "JSON"),
        ("AWS_LAMBDA_LOG_LEVEL", "INFO"),
        ("AWS_LAMBDA_INITIALIZATION_TYPE", "on-demand"),
        ("AWS_ACCOUNT_ID", "123456789012"),
        ("AWS_REGION", region),
        ("AWS_DEFAULT_REGION", region),
        ("AWS_ACCESS_KEY_ID", access_key_id),
        ("AWS_SECRET_ACCESS_KEY", secret_access_key),
    ]
    .into_iter()
    .map(|(name, value)| (name.to_owned(), value.to_owned()))
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn given_the_repositorys_env_file_then_it_parses_and_names_the_container_host() {
        let file = parse_env_file(ENV_FILE).expect("local/sam-env.json parses");
        assert!(file.contains_key("SendMessageFunction"), "{file:?}");
        assert!(ENV_FILE.contains(CONTAINER_HOST));
        assert!(parse_env_file(r#"{"F": {"X": 1}}"#).is_err());
        assert!(parse_env_file(r#"{"F": "x"}"#).is_err());
    }

    #[test]
    fn given_declared_variables_when_the_file_leaves_them_then_sam_resolves_defaults_ids_and_novalue()
     {
        let template = serde_json::json!({
            "Parameters": {"Stage": {"Default": "Development"}, "Size": {"Default": 8}, "Empty": {}},
            "Globals": {"Function": {"Environment": {"Variables": {
                "STAGE": {"Ref": "Stage"}, "SIZE": {"Ref": "Size"}, "EMPTY": {"Ref": "Empty"},
                "TABLE": {"Ref": "PlayersTable"}, "ENDPOINT": {"Ref": "AWS::NoValue"},
                "PLAIN": "x", "IF": {"Fn::If": ["C", "a", "b"]}
            }}}},
            "Resources": {"F": {"Properties": {"Environment": {"Variables": {"OWN": "y"}}}}}
        });
        let entry = BTreeMap::from([("TABLE".to_owned(), "Players".to_owned())]);
        let env = function_environment(&template, "F", &entry);
        let expected: BTreeMap<String, String> = [
            ("STAGE", "Development"),
            ("SIZE", "8"),
            ("EMPTY", ""),
            ("TABLE", "Players"),
            ("ENDPOINT", ""),
            ("PLAIN", "x"),
            ("OWN", "y"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
        assert_eq!(env, expected);
    }
}
