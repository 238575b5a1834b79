use serde_json::json;

use super::*;

fn render(template: &str, payload: Value, context: Value) -> String {
    let template = Template::parse(template).unwrap();
    template
        .render(&mut Scope::new(&payload, &context))
        .unwrap()
}

#[test]
fn references_render_their_value_or_themselves_unless_quiet() {
    let context = json!({"connectionId": "c1", "authorizer": {"playerId": "alice"}, "n": 5});
    assert_eq!(
        render(
            "$context.connectionId/$context.authorizer.playerId/$context.n/$nope/$!nope/$context.x.y",
            json!({}),
            context
        ),
        "c1/alice/5/$nope//$context.x.y"
    );
}

#[test]
fn input_json_and_path_read_the_payload() {
    let payload = json!({"a": {"b": [1, 2], "s": "x\"y", "n": 42}});
    let out = render(
        "$input.json('$.a.b')|$input.json('$.a.s')|$input.path('$.a.s')|$input.path('$.a.n')|$!input.json('$.zz')|$input.json('$')",
        payload.clone(),
        json!({}),
    );
    assert_eq!(out, format!("[1,2]|\"x\\\"y\"|x\"y|42||{payload}"));
}

#[test]
fn set_if_elseif_else_and_expressions() {
    let template = "#set($a = \"$!input.path('$.v')\")#set($long = $a.length() > 3)\
        #if($a == '')empty#elseif($long && $a.startsWith('ab'))long-ab#elseif(!$long)short#else other#end";
    let at = |v: &str| render(template, json!({"v": v}), json!({}));
    assert_eq!(render(template, json!({}), json!({})), "empty");
    assert_eq!(at("abcd"), "long-ab");
    assert_eq!(at("xy"), "short");
    assert_eq!(at("xyzw"), " other");
    assert_eq!(
        render(
            "#if($input.path('$.t').matches('^[0-9]+$') || false)digits#end#if(null == $nope)!#end",
            json!({"t": "123"}),
            json!({})
        ),
        "digits!"
    );
}

#[test]
fn unknown_directives_are_text_and_bad_templates_are_refused() {
    assert_eq!(
        render("#status = :online #endless", json!({}), json!({})),
        "#status = :online #endless"
    );
    for bad in ["#if($a)x", "#end", "#set($a = )", "#if('x)y#end", "$a.b("] {
        assert!(Template::parse(bad).is_err(), "{bad}");
    }
}

#[test]
fn escape_java_script_follows_javascript_string_rules() {
    assert_eq!(
        escape_java_script("a'b\"c\\d/e\nf\u{1}é😀"),
        "a\\'b\\\"c\\\\d\\/e\\nf\\u0001\\u00E9\\uD83D\\uDE00"
    );
}

#[test]
fn matches_is_javas_whole_string_match() {
    let out = render(
        "#if($input.path('$.s').matches('b'))part#end#if($input.path('$.s').matches('a.c'))whole#end",
        json!({"s": "abc"}),
        json!({}),
    );
    assert_eq!(out, "whole");
}
