//! `--set KEY=VALUE`: change one key of the scenario table before validation.
//!
//! KEY is a dotted path; numbers index arrays (`flows.0.cc`). VALUE is read as a TOML value
//! when it is one (`3`, `0.5`, `true`, `"text"`, `[1, 2]`) and as a bare string otherwise
//! (`100Mbps`, `cubic`), so units need no quoting on the command line.

use toml::{Table, Value};

use crate::error::ScenarioError;

/// Apply `assignment` ("KEY=VALUE") to `root`.
pub fn apply_override(root: &mut Table, assignment: &str) -> Result<(), ScenarioError> {
    let fail = |message: String| ScenarioError::Override {
        assignment: assignment.to_string(),
        message,
    };
    let (key, raw) = assignment
        .split_once('=')
        .ok_or_else(|| fail("expected KEY=VALUE, e.g. --set flows.0.cc=cubic".into()))?;
    let key = key.trim();
    if key.is_empty() || key.split('.').any(str::is_empty) {
        return Err(fail(format!(
            "`{key}` is not a key path such as topology.bottleneck.rate"
        )));
    }
    set_path(root, key, parse_value(raw.trim())).map_err(fail)
}

/// Set `path` (dotted, numbers index arrays) in `root`, creating missing tables.
pub fn set_path(root: &mut Table, path: &str, value: Value) -> Result<(), String> {
    let parts: Vec<&str> = path.split('.').collect();
    let (last, parents) = parts.split_last().expect("split yields at least one part");
    let mut current = root;
    let mut walked = String::new();
    for part in parents {
        if !walked.is_empty() {
            walked.push('.');
        }
        walked.push_str(part);
        let entry = current
            .entry(part.to_string())
            .or_insert_with(|| Value::Table(Table::new()));
        current = match entry {
            Value::Table(t) => t,
            Value::Array(items) => {
                return descend_array(items, &parts, &walked, value);
            }
            _ => return Err(format!("`{walked}` is a value, not a table")),
        };
    }
    current.insert(last.to_string(), value);
    Ok(())
}

/// `flows.0.cc`: `items` is the array at `walked`; the next part must be an index.
fn descend_array(
    items: &mut [Value],
    parts: &[&str],
    walked: &str,
    value: Value,
) -> Result<(), String> {
    let depth = walked.split('.').count();
    let index_text = parts
        .get(depth)
        .ok_or_else(|| format!("`{walked}` is an array; give an index, e.g. {walked}.0"))?;
    let index: usize = index_text
        .parse()
        .map_err(|_| format!("`{walked}` is an array; `{index_text}` is not an index"))?;
    let len = items.len();
    let item = items
        .get_mut(index)
        .ok_or_else(|| format!("`{walked}` has {len} entries, so index {index} does not exist"))?;
    let rest = &parts[depth + 1..];
    match item {
        Value::Table(t) if !rest.is_empty() => set_path(t, &rest.join("."), value),
        _ if rest.is_empty() => {
            *item = value;
            Ok(())
        }
        _ => Err(format!("`{walked}.{index}` is not a table")),
    }
}

/// A TOML value if `raw` is one, else the bare string.
pub fn parse_value(raw: &str) -> Value {
    format!("v = {raw}")
        .parse::<Table>()
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| Value::String(raw.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(text: &str) -> Table {
        text.parse().unwrap()
    }

    #[test]
    fn sets_nested_and_indexed_keys() {
        let mut t = table("[topology]\n[[flows]]\ncc = \"reno\"\n[[flows]]\ncc = \"reno\"\n");
        apply_override(&mut t, "topology.bottleneck.rate=100Mbps").unwrap();
        apply_override(&mut t, "flows.1.cc=cubic").unwrap();
        apply_override(&mut t, "seed=7").unwrap();
        apply_override(&mut t, "flows.0.drop=[3, 4]").unwrap();
        assert_eq!(
            t["topology"]["bottleneck"]["rate"].as_str(),
            Some("100Mbps")
        );
        assert_eq!(t["flows"][1]["cc"].as_str(), Some("cubic"));
        assert_eq!(t["seed"].as_integer(), Some(7));
        assert_eq!(t["flows"][0]["drop"].as_array().map(Vec::len), Some(2));
    }

    #[test]
    fn explains_bad_assignments() {
        let mut t = table("[[flows]]\ncc = \"reno\"\n");
        let err = apply_override(&mut t, "flows.3.cc=reno").unwrap_err();
        assert_eq!(
            err.to_string(),
            "--set flows.3.cc=reno: `flows` has 1 entries, so index 3 does not exist"
        );
        assert!(apply_override(&mut t, "seed").is_err());
        assert!(apply_override(&mut t, "flows.cc=reno").is_err());
        assert!(apply_override(&mut t, ".x=1").is_err());
    }
}
