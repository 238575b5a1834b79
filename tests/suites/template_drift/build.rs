//! The deploy build: `sam build` runs the repository's Makefile for every function
//! (`BuildMethod: makefile`), whose `FUNCTIONS` list maps each logical id to the binary
//! it copies. The template and that list must name the same functions and binaries, or a
//! function would be deployed with another's bootstrap, or not built at all.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::FUNCTION;
use super::cfn::Template;

fn repository() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `LogicalId=binary` pairs of the Makefile's `FUNCTIONS := \` list (one per line, each
/// ending with `\` but the last).
fn makefile_functions() -> BTreeMap<String, String> {
    let path = repository().join("Makefile");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut lines = text.lines().skip_while(|l| l.trim() != "FUNCTIONS := \\");
    assert!(
        lines.next().is_some(),
        "the Makefile has no `FUNCTIONS := \\` list"
    );
    let mut functions = BTreeMap::new();
    for line in lines {
        let entry = line.trim().trim_end_matches('\\').trim();
        let (id, binary) = entry.split_once('=').unwrap_or_else(|| {
            panic!("the Makefile's FUNCTIONS has a line that is not Id=binary: {line:?}")
        });
        assert!(
            functions.insert(id.to_owned(), binary.to_owned()).is_none(),
            "the Makefile's FUNCTIONS lists {id} twice"
        );
        if !line.trim_end().ends_with('\\') {
            break;
        }
    }
    functions
}

#[test]
fn given_the_template_and_the_makefile_then_they_list_the_same_functions_with_the_same_binaries() {
    let template = Template::load();
    let deployed: BTreeMap<String, String> = template
        .of_type(FUNCTION)
        .into_iter()
        .map(|(id, _)| (id.to_owned(), template.function_binary(id).to_owned()))
        .collect();
    assert_eq!(
        makefile_functions(),
        deployed,
        "the Makefile's FUNCTIONS (left) and template.yaml's functions with their BuildProperties.Binary (right) differ"
    );
}

#[test]
fn given_every_function_of_the_template_then_sam_builds_it_with_the_makefile_at_the_root_from_its_own_crate()
 {
    let template = Template::load();
    let mut problems = Vec::new();
    for (id, function) in template.of_type(FUNCTION) {
        let binary = template.function_binary(id);
        let metadata = &function["Metadata"];
        for (key, expected) in [
            ("BuildMethod", "makefile"),
            ("ContextPath", "."),
            ("WorkingDirectory", "."),
        ] {
            if metadata[key] != expected {
                problems.push(format!(
                    "{id}: Metadata.{key} is {}, not {expected:?}",
                    metadata[key]
                ));
            }
        }
        // SAM copies CodeUri to a scratch folder before each build: the function's own
        // crate is small; the repository root would copy target/ and .tools/ 15 times.
        let code_uri = format!("functions/{binary}/");
        if template.properties(id)["CodeUri"] != code_uri.as_str() {
            problems.push(format!(
                "{id}: CodeUri is {}, not {code_uri:?}",
                template.properties(id)["CodeUri"]
            ));
        }
        let manifest = repository().join(&code_uri).join("Cargo.toml");
        let declares_binary = std::fs::read_to_string(&manifest)
            .is_ok_and(|text| text.contains(&format!("name = \"{binary}\"")));
        if !declares_binary {
            problems.push(format!(
                "{id}: {} does not declare the binary {binary}",
                manifest.display()
            ));
        }
    }
    super::assert_no_problems("functions not built as the Makefile expects", &problems);
}

/// The bootstraps' cargo command as `make` would run it (`make -n`: nothing is built).
fn bootstraps_command(profile: Option<&str>) -> String {
    let mut make = std::process::Command::new("make");
    make.current_dir(repository()).args(["-n", "bootstraps"]);
    make.env_remove("DEPLOY_PROFILE");
    if let Some(profile) = profile {
        make.env("DEPLOY_PROFILE", profile);
    }
    let out = make.output().expect("make runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The `[profile.NAME]` table of Cargo.toml, as its `key = value` lines.
fn cargo_profile(name: &str) -> Vec<String> {
    let text = std::fs::read_to_string(repository().join("Cargo.toml")).unwrap();
    let header = format!("[profile.{name}]");
    let (_, rest) = text
        .split_once(&format!("\n{header}\n"))
        .unwrap_or_else(|| panic!("Cargo.toml has no {header}"));
    rest.lines()
        .take_while(|line| !line.starts_with('['))
        .filter(|line| !line.starts_with('#') && line.contains('='))
        .map(|line| line.replace(' ', ""))
        .collect()
}

#[test]
fn given_the_deploy_build_when_production_or_development_builds_then_each_gets_its_own_cargo_profile()
 {
    // Production (no DEPLOY_PROFILE) keeps release, with its fat LTO and one codegen unit.
    assert!(bootstraps_command(None).contains("cargo lambda build --profile release --arm64"));
    let release = cargo_profile("release");
    for line in ["lto=true", "codegen-units=1", "opt-level=3", "strip=true"] {
        assert!(release.contains(&line.to_owned()), "release lost {line}");
    }
    // `scripts/sam-build.sh --dev`: the development profile, release without whole-program
    // optimisation.
    assert!(
        bootstraps_command(Some("dev-deploy"))
            .contains("cargo lambda build --profile dev-deploy --arm64")
    );
    let dev = cargo_profile("dev-deploy");
    for line in [
        "inherits=\"release\"",
        "lto=false",
        "codegen-units=256",
        "incremental=true",
    ] {
        assert!(dev.contains(&line.to_owned()), "dev-deploy lacks {line}");
    }
    let script = std::fs::read_to_string(repository().join("scripts/sam-build.sh")).unwrap();
    assert!(script.contains("export DEPLOY_PROFILE=dev-deploy"));
    let deploy = std::fs::read_to_string(repository().join("scripts/deploy.sh")).unwrap();
    assert!(deploy.contains("Stage=Production") && deploy.contains("build_args+=(--dev)"));
}
