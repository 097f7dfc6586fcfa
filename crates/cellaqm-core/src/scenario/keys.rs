//! The keys a configuration struct accepts, as its `Deserialize` knows them:
//! serde hands a struct's field names to the deserializer
//! (`Deserializer::deserialize_struct`), so a deserializer that only listens
//! for them lists every key, optional ones included, with nothing to keep in
//! step by hand. `cellaqm list traffic` lists each model's keys with it.

use serde::de::{self, Deserialize, Deserializer, Visitor};
use std::fmt;

/// The error that stops the probe once it has heard the field names.
#[derive(Debug)]
struct Heard;

impl fmt::Display for Heard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key probe reads no value")
    }
}
impl std::error::Error for Heard {}
impl de::Error for Heard {
    fn custom<T: fmt::Display>(_: T) -> Self {
        Heard
    }
}

/// A deserializer that records the field names a struct asks for, and reads nothing.
struct Probe<'a>(&'a mut &'static [&'static str]);

impl<'de> Deserializer<'de> for Probe<'_> {
    type Error = Heard;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Heard> {
        Err(Heard)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Heard> {
        *self.0 = fields;
        Err(Heard)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option unit
        unit_struct newtype_struct seq tuple tuple_struct map enum identifier ignored_any
    }
}

/// The keys struct `T` accepts, in declaration order (empty if `T` is not read as a struct).
pub fn of<T: for<'de> Deserialize<'de>>() -> &'static [&'static str] {
    let mut fields: &'static [&'static str] = &[];
    let _ = T::deserialize(Probe(&mut fields));
    fields
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::TcpConfig;

    #[test]
    fn lists_every_field_in_order() {
        #[derive(serde::Deserialize)]
        #[allow(dead_code)]
        struct Two {
            first: u32,
            #[serde(rename = "second_key", default)]
            second: Option<String>,
        }
        assert_eq!(of::<Two>(), ["first", "second_key"]);
        assert!(of::<TcpConfig>().contains(&"recovery") && of::<TcpConfig>().contains(&"cwnd_validation"));
        assert!(of::<u32>().is_empty());
    }
}
