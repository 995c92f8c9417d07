//! `undo` and `frto`: defaults, accepted values, and one sentence naming file, key and
//! problem for every bad value.

use crate::from_str;

fn flows(keys: &str) -> String {
    format!(
        "[topology]\nbottleneck = {{ rate = \"10Mbps\", delay = \"10ms\" }}\n\
         [[flows]]\ncc = \"reno\"\n{keys}"
    )
}

#[test]
fn off_by_default_and_on_when_asked() {
    let s = from_str("t.toml", &flows(""), &[]).expect("valid");
    assert_eq!((s.flows[0].undo, s.flows[0].frto), (false, false));
    let s = from_str("t.toml", &flows("undo = true\n"), &[]).expect("valid");
    assert_eq!((s.flows[0].undo, s.flows[0].frto), (true, false));
    let s = from_str("t.toml", &flows("undo = true\nfrto = true\n"), &[]).expect("valid");
    assert_eq!((s.flows[0].undo, s.flows[0].frto), (true, true));
    let s = from_str("t.toml", &flows(""), &["flows.0.undo=true".into()]).expect("valid");
    assert!(s.flows[0].undo);
}

#[test]
fn bad_values_are_one_sentence() {
    for (keys, key, fragment) in [
        ("undo = \"yes\"\n", "flows.0.undo", "true or false"),
        ("undo = true\nfrto = 1\n", "flows.0.frto", "true or false"),
        ("frto = true\n", "flows.0.frto", "needs undo = true"),
    ] {
        let message = from_str("bad.toml", &flows(keys), &[])
            .expect_err(keys)
            .to_string();
        assert!(
            message.starts_with(&format!("bad.toml: {key}: ")),
            "{keys}: {message}"
        );
        assert!(message.contains(fragment), "{keys}: {message}");
        assert!(!message.contains('\n'), "{message}");
    }
}
