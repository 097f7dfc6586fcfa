//! `--set key.path=value` overrides applied to a parsed scenario tree.
//!
//! [`set_path`] is the one implementation of "set this key path": the
//! command line's `--set` ([`apply`]) and sweep files (through the Python
//! binding's `set_path`) both use it, so a path works in one exactly when it
//! works in the other, with the same errors.

/// Applies one `--set key.path=value`: the value is a TOML value when it
/// parses as one (`3`, `true`, `{ scheme = "red" }`), else a string (`384kbps`).
pub fn apply(root: &mut toml::Value, set: &str) -> Result<(), String> {
    let (path, raw) = set.split_once('=').ok_or_else(|| format!("--set {set}: expected key.path=value"))?;
    set_path(root, path.trim(), parse_value(raw.trim()))
}

/// Sets `path` (dot-separated keys) in `root` to `value`, creating tables on
/// the way; a number indexes an array of tables (`traffic.1.users` in
/// `[[traffic]]`).
pub fn set_path(root: &mut toml::Value, path: &str, value: toml::Value) -> Result<(), String> {
    if path.is_empty() || path.split('.').any(str::is_empty) {
        return Err(format!("{path:?}: not a key path (keys joined by dots, like bottleneck.buffer)"));
    }
    let mut node = root;
    let mut keys = path.split('.').enumerate().peekable();
    while let Some((depth, key)) = keys.next() {
        let last = keys.peek().is_none();
        if let (true, Ok(i)) = (node.is_array(), key.parse::<usize>()) {
            let array = node.as_array_mut().expect("checked");
            let len = array.len();
            node = array.get_mut(i).ok_or_else(|| format!("{path}: index {i} out of range (the array has {len})"))?;
            if last {
                *node = value;
                return Ok(());
            }
            continue;
        }
        let table = node.as_table_mut().ok_or_else(|| {
            let parent: Vec<&str> = path.split('.').take(depth).collect();
            format!("{path}: cannot set inside {}, which is not a table", parent.join("."))
        })?;
        if last {
            table.insert(key.to_string(), value);
            return Ok(());
        }
        node = table.entry(key).or_insert_with(|| toml::Value::Table(Default::default()));
    }
    unreachable!("path has at least one key")
}

/// `set_path` on a scenario document and a value given as JSON (how the
/// Python binding passes them); returns the new document as JSON.
pub fn set_path_json(doc: &str, path: &str, value: &str) -> Result<String, String> {
    let mut root: toml::Value = serde_json::from_str(doc).map_err(|e| format!("not a valid scenario object: {e}"))?;
    let value: toml::Value = serde_json::from_str(value).map_err(|e| format!("{path}: not a scenario value ({e})"))?;
    set_path(&mut root, path, value)?;
    Ok(serde_json::to_string(&root).expect("a TOML tree serialises to JSON"))
}

fn parse_value(raw: &str) -> toml::Value {
    format!("v = {raw}")
        .parse::<toml::Table>()
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(raw.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_and_string_values() {
        let mut v = toml::Value::Table(Default::default());
        apply(&mut v, "a.b=3").unwrap();
        apply(&mut v, "a.c=384kbps").unwrap();
        apply(&mut v, "a.d={ scheme = \"red\" }").unwrap();
        assert_eq!(v["a"]["b"].as_integer(), Some(3));
        assert_eq!(v["a"]["c"].as_str(), Some("384kbps"));
        assert_eq!(v["a"]["d"]["scheme"].as_str(), Some("red"));
        assert_eq!(apply(&mut v, "nonsense").unwrap_err(), "--set nonsense: expected key.path=value");
        assert_eq!(apply(&mut v, "a.b.c=1").unwrap_err(), "a.b.c: cannot set inside a.b, which is not a table");
        assert!(apply(&mut v, "a..b=1").unwrap_err().starts_with("\"a..b\": not a key path"));
        let mut v: toml::Value = toml::from_str("[[t]]\nx = 1\n[[t]]\nx = 2").unwrap();
        apply(&mut v, "t.1.x=5").unwrap();
        assert_eq!(v["t"][1]["x"].as_integer(), Some(5));
        assert!(apply(&mut v, "t.2.x=5").unwrap_err().contains("out of range"));
        let doc = set_path_json(r#"{"t":[{"x":1},{"x":2}]}"#, "t.1.x", r#"{"a":[1,"b"]}"#).unwrap();
        assert_eq!(doc, r#"{"t":[{"x":1},{"x":{"a":[1,"b"]}}]}"#);
        assert_eq!(
            set_path_json("{}", "t.0", "null").unwrap_err().split(" (").next(),
            Some("t.0: not a scenario value")
        );
    }
}
