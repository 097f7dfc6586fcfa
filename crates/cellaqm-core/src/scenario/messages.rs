//! Error messages of the scenario reader: one line naming the key and the
//! expected form in the scenario's own terms (tables, whole numbers, names in
//! quotes), never Rust type names.
//!
//! serde words its errors after the Rust types (`invalid type: integer `3`,
//! expected struct TcpConfig`); [`describe`] rewrites them, so every section
//! read with `serde_path_to_error` gets the same wording. The forms it
//! recognises are serde's `de::Error` defaults (`invalid_type`,
//! `invalid_value`, `unknown_variant`, `unknown_field`, `missing_field`) and
//! the `Expected`/`Unexpected` texts of serde's primitive impls.

/// Marks an error raised inside a hand-written deserialiser with the key path
/// below the point where it was raised (see [`nested_error`]).
const NESTED: char = '\u{1f}';

/// An error message for `key` (a path relative to the value being read); the
/// scenario reader joins it to the outer path.
pub(crate) fn nested_error(key: &str, msg: &str) -> String {
    format!("{NESTED}{key}{NESTED}{msg}")
}

/// One line from a serde error at `path`: unknown keys, missing keys and bad
/// values each say which key and what was expected.
pub(crate) fn describe(path: &str, msg: &str) -> String {
    let msg = msg.lines().next().unwrap_or(msg);
    if let Some((key, inner)) = msg.strip_prefix(NESTED).and_then(|m| m.split_once(NESTED)) {
        let outer = if path.is_empty() || path == "." { String::new() } else { format!("{path}.") };
        return describe(&format!("{outer}{key}"), inner);
    }
    if let Some(rest) = msg.strip_prefix("unknown field `") {
        // serde_path_to_error's path already ends with the unknown key, except in a
        // section with flattened keys (the radio environment's): there it names the section.
        let (field, expected) = rest.split_once('`').map_or((rest, ""), |(f, e)| (f, e.trim_start_matches(", ")));
        let key = match path.rsplit('.').next() == Some(field) {
            true => path.to_string(),
            false => format!("{path}.{field}"),
        };
        return match expected {
            "" => format!("{key}: unknown key"),
            e => format!("{key}: unknown key ({e})"),
        };
    }
    if let Some(rest) = msg.strip_prefix("missing field `") {
        let field = rest.trim_end_matches('`');
        let key = if path == "." || path.is_empty() { field.to_string() } else { format!("{path}.{field}") };
        return format!("{key}: missing (required)");
    }
    let key = if path.is_empty() || path == "." { "scenario" } else { path };
    format!("{key}: {}", plain(key, msg))
}

/// serde's wording of a bad value at `key`, as "expected <form>, got <value>".
fn plain(key: &str, msg: &str) -> String {
    let mismatch = msg.strip_prefix("invalid type: ").or_else(|| msg.strip_prefix("invalid value: "));
    if let Some((got, expected)) = mismatch.and_then(|m| m.split_once(", expected ")) {
        return format!("expected {}{}", form(key, expected), got_value(got));
    }
    if let Some((got, names)) = msg.strip_prefix("unknown variant `").and_then(|m| m.split_once("`, expected ")) {
        return format!("expected {}, got \"{got}\"", names.replace('`', "\""));
    }
    if msg.starts_with("wanted exactly 1 element") {
        // toml's enum reader, given a table: the key takes a name.
        return format!("expected {}", form(key, "string only"));
    }
    msg.to_string()
}

/// The expected form, from serde's `Expected` text.
fn form(key: &str, expected: &str) -> String {
    let table = || if key == "scenario" { "a table of sections".to_string() } else { format!("a table [{key}]") };
    match expected {
        "u8" => "a whole number from 0 to 255".into(),
        "u16" => "a whole number from 0 to 65535".into(),
        "u32" => "a whole number ≥ 0 (at most 4294967295)".into(),
        "u64" | "usize" => "a whole number ≥ 0".into(),
        "i8" | "i16" | "i32" | "i64" | "isize" => "a whole number".into(),
        "f32" | "f64" => "a number".into(),
        "a boolean" => "true or false".into(),
        "a string" | "a borrowed string" => "a string in quotes".into(),
        "a sequence" => "an array".into(),
        "a map" | "map" => table(),
        // toml's reader of a named choice (`recovery = "sack"`) given a number, boolean or array.
        "string only" | "unit" => "a name in quotes (see docs/scenario.md for the choices)".into(),
        e if e.starts_with("struct ") => table(),
        e if e.starts_with("enum ") => form(key, "string only"),
        other => other.into(),
    }
}

/// ", got <value>" from serde's `Unexpected` text (``integer `3` ``,
/// `string "abc"`, `map`, ...).
fn got_value(unexpected: &str) -> String {
    if let Some((_, v)) = unexpected.split_once('`') {
        return format!(", got {}", v.trim_end_matches('`'));
    }
    if let Some(s) = unexpected.strip_prefix("string ") {
        return format!(", got {s}");
    }
    match unexpected {
        "map" => ", got a table".into(),
        "sequence" => ", got an array".into(),
        // toml's enum reader says this of any value that is not a string or a table.
        "unit variant" => String::new(),
        other => format!(", got {other}"),
    }
}

/// `not valid TOML at line L, column C: <reason>`, from the parser's byte span.
pub(crate) fn toml_syntax(text: &str, e: &toml::de::Error) -> String {
    let reason = e.message().lines().next().unwrap_or("");
    match e.span().and_then(|span| text.get(..span.start)) {
        Some(before) => {
            let line = before.matches('\n').count() + 1;
            let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
            format!("not valid TOML at line {line}, column {column}: {reason}")
        }
        None => format!("not valid TOML: {reason}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serde_wording_becomes_the_expected_form() {
        let cases = [
            ("tcp", "invalid type: integer `3`, expected struct TcpConfig", "tcp: expected a table [tcp], got 3"),
            ("seed", "invalid value: integer `-3`, expected u64", "seed: expected a whole number ≥ 0, got -3"),
            (
                "tcp.initial_window",
                "invalid type: floating point `2.5`, expected u32",
                "tcp.initial_window: expected a whole number ≥ 0 (at most 4294967295), got 2.5",
            ),
            (
                "bottleneck.loss",
                "invalid type: string \"abc\", expected f64",
                "bottleneck.loss: expected a number, got \"abc\"",
            ),
            ("tcp.ecn", "invalid type: integer `3`, expected a boolean", "tcp.ecn: expected true or false, got 3"),
            (
                "bottleneck.queue",
                "invalid type: sequence, expected a map",
                "bottleneck.queue: expected a table [bottleneck.queue], got an array",
            ),
            (
                "tcp.recovery",
                "unknown variant `foo`, expected one of `reno`, `newreno`, `sack`",
                "tcp.recovery: expected one of \"reno\", \"newreno\", \"sack\", got \"foo\"",
            ),
            (
                "tcp.recovery",
                "invalid type: unit variant, expected string only",
                "tcp.recovery: expected a name in quotes (see docs/scenario.md for the choices)",
            ),
            (
                "tcp.recovery",
                "wanted exactly 1 element, found 0 elements",
                "tcp.recovery: expected a name in quotes (see docs/scenario.md for the choices)",
            ),
            ("tcp.mss", "a custom message", "tcp.mss: a custom message"),
        ];
        for (path, msg, want) in cases {
            assert_eq!(describe(path, msg), want);
        }
    }

    #[test]
    fn toml_syntax_errors_give_line_and_column() {
        let text = "duration = \"10s\"\nname = \"x\n";
        let e = text.parse::<toml::Table>().unwrap_err();
        let msg = toml_syntax(text, &e);
        assert!(msg.starts_with("not valid TOML at line 2, column "), "{msg}");
        assert!(!msg.contains('\n'));
    }
}
