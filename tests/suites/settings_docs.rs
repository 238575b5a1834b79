//! The documentation's settings listings against the settings table
//! (`shared::config::settings::catalogue`): the README's table is rendered from it
//! (between `<!-- settings-table ... -->` markers), docs/deploy.md's
//! parameter rows say its defaults, and the local stack's `--help` shows every setting
//! it reads with its default. A setting added to the table and missing from any of them
//! fails here, naming it.
//!
//! Rewrite the rendered tables after changing the table:
//! `UPDATE_DOCS=1 cargo test -p tests --test suites settings_docs`.

use std::path::PathBuf;

use shared::config::settings::{Described, catalogue};

fn repo_file(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(path)
}

/// A default as the tables write it.
fn default_cell(setting: &Described) -> String {
    match &setting.default {
        Some(value) => format!("`{value}`"),
        None => "none".to_owned(),
    }
}

/// The full table: every setting, its template parameter, default, what it accepts and
/// what it means.
fn full_table() -> String {
    let mut out = String::from(
        "| variable | template parameter | default | accepts | meaning |\n|---|---|---|---|---|\n",
    );
    for setting in catalogue() {
        let parameter = setting
            .parameter
            .map_or_else(|| "—".to_owned(), |p| format!("`{p}`"));
        out.push_str(&format!(
            "| `{}` | {parameter} | {} | {} | {} |\n",
            setting.variable,
            default_cell(&setting),
            setting.accepts,
            setting.meaning
        ));
    }
    out
}

/// Replaces what stands between `<!-- settings-table:NAME -->` and
/// `<!-- settings-table:end -->` in `path` with `table`, or checks that it is already so.
fn rendered(path: &str, name: &str, table: &str) -> Result<(), String> {
    let file = repo_file(path);
    let text = std::fs::read_to_string(&file).map_err(|e| format!("{path}: {e}"))?;
    let begin = format!("<!-- settings-table:{name} -->\n");
    let end = "<!-- settings-table:end -->";
    let start = text
        .find(&begin)
        .ok_or_else(|| format!("{path} has no {begin:?} marker"))?
        + begin.len();
    let stop = start
        + text[start..]
            .find(end)
            .ok_or_else(|| format!("{path} has no {end:?} after {begin:?}"))?;
    if text[start..stop] == *table {
        return Ok(());
    }
    if std::env::var_os("UPDATE_DOCS").is_some() {
        let updated = format!("{}{table}{}", &text[..start], &text[stop..]);
        return std::fs::write(&file, updated).map_err(|e| format!("{path}: {e}"));
    }
    Err(format!(
        "{path}'s settings table is not the settings table's rendering; rewrite it with \
         UPDATE_DOCS=1 cargo test -p tests --test suites settings_docs"
    ))
}

#[test]
fn given_the_settings_table_then_the_readme_table_is_its_rendering() {
    rendered("README.md", "readme", &full_table()).unwrap();
}

#[test]
fn given_each_setting_a_parameter_sets_then_deploy_md_lists_the_parameter_with_that_default() {
    let text = std::fs::read_to_string(repo_file("docs/deploy.md")).unwrap();
    let mut problems = Vec::new();
    for setting in catalogue() {
        let Some(parameter) = setting.parameter else {
            continue;
        };
        let prefix = format!("| `{parameter}` | ");
        let Some(row) = text.lines().find(|line| line.starts_with(&prefix)) else {
            problems.push(format!(
                "docs/deploy.md's parameter table has no row for {parameter}"
            ));
            continue;
        };
        let documented = row[prefix.len()..].split(" | ").next().unwrap_or_default();
        let expected = match setting.default.as_deref() {
            None | Some("") => "empty".to_owned(),
            Some(value) if value.parse::<u64>().is_ok() => value.to_owned(),
            Some(value) => format!("`{value}`"),
        };
        if documented != expected {
            problems.push(format!(
                "docs/deploy.md says {parameter}'s default is {documented}; {} says {expected}",
                setting.variable
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn given_each_setting_the_local_stack_reads_then_its_help_shows_the_variable_and_the_default() {
    let help = local::Settings::long_help();
    // The functions' settings the local stack has no flag for: the deployed authorizer's
    // opt-in and secret parameter (the local stack opts in itself, and takes the secret
    // directly), the bus (in-process), and matchmaking's (--matchmaking-rule-set).
    let not_local = [
        "ALLOW_UNAUTHENTICATED",
        "JWT_HS256_SECRET_PARAMETER",
        "PRESENCE_EVENT_BUS",
        "MATCHMAKING_CONFIGURATIONS",
        "MATCHMAKING_CONFIGURATION",
    ];
    // Where the local stack's default is its own (development: players name themselves).
    let local_default = [("AUTH_MODE", "header")];
    let mut problems = Vec::new();
    for setting in catalogue() {
        if not_local.contains(&setting.variable) {
            continue;
        }
        let env = format!("[env: {}=", setting.variable);
        let Some(at) = help.find(&env) else {
            problems.push(format!("--help has no flag for {}", setting.variable));
            continue;
        };
        let default = local_default
            .iter()
            .find(|(variable, _)| *variable == setting.variable)
            .map(|(_, value)| (*value).to_owned())
            .or_else(|| setting.default.clone());
        // The help text of a flag ends at the next blank line.
        let entry = &help[at..];
        let entry = &entry[..entry.find("\n\n").unwrap_or(entry.len())];
        match default {
            Some(default) if !entry.contains(&format!("[default: {default}]")) => {
                problems.push(format!(
                    "--help shows {} without [default: {default}]: {entry}",
                    setting.variable
                ))
            }
            _ => {}
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
