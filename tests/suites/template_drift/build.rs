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
