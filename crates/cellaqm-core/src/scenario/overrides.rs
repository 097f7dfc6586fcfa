//! `--set key.path=value` overrides applied to a parsed scenario tree.

/// Sets `path` (dot-separated) in `root` to `value`, creating tables on the way;
/// a number indexes an array of tables (`traffic.1.users` in `[[traffic]]`).
/// The value is a TOML value when it parses as one, else a string.
pub fn apply(root: &mut toml::Value, set: &str) -> Result<(), String> {
    let (path, raw) = set
        .split_once('=')
        .ok_or_else(|| format!("--set {set}: expected key.path=value"))?;
    let path = path.trim();
    if path.is_empty() || path.split('.').any(str::is_empty) {
        return Err(format!("--set {set}: expected key.path=value"));
    }
    let value = parse_value(raw.trim());
    let mut node = root;
    let mut keys = path.split('.').peekable();
    while let Some(key) = keys.next() {
        if let (true, Ok(i)) = (node.is_array(), key.parse::<usize>()) {
            let array = node.as_array_mut().expect("checked");
            let len = array.len();
            node = array.get_mut(i).ok_or_else(|| format!("{path}: index {i} out of range (the array has {len})"))?;
            if keys.peek().is_none() {
                *node = value;
                return Ok(());
            }
            continue;
        }
        let table = node
            .as_table_mut()
            .ok_or_else(|| format!("{path}: cannot set inside a value that is not a table"))?;
        if keys.peek().is_none() {
            table.insert(key.to_string(), value);
            return Ok(());
        }
        node = table.entry(key).or_insert_with(|| toml::Value::Table(Default::default()));
    }
    unreachable!("path has at least one key")
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
        assert!(apply(&mut v, "nonsense").is_err());
        assert!(apply(&mut v, "a.b.c=1").is_err());
        let mut v: toml::Value = toml::from_str("[[t]]\nx = 1\n[[t]]\nx = 2").unwrap();
        apply(&mut v, "t.1.x=5").unwrap();
        assert_eq!(v["t"][1]["x"].as_integer(), Some(5));
        assert!(apply(&mut v, "t.2.x=5").unwrap_err().contains("out of range"));
    }
}
