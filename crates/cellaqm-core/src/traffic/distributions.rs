//! Random quantities in scenario files: one distribution type, unit-aware.
//!
//! A value is either a plain quantity (a fixed value) or a table naming a
//! distribution. The quantity kind (size, time, count) decides the units:
//!
//! | form | parameters | draw |
//! |---|---|---|
//! | `"65kB"`, `"6s"`, `3` | — | always that value |
//! | `{ dist = "fixed", value = "65kB" }` | `value` | always `value` |
//! | `{ dist = "uniform", min = "5s", max = "10s" }` | `min` ≤ `max` | U(min, max) |
//! | `{ dist = "exponential", mean = "300kB" }` | `mean` > 0 | −mean·ln U |
//! | `{ dist = "pareto", mean = "25kB", shape = 1.1, cap = "2MB" }` | `shape` α > 0; `scale` k > 0, or `mean` (α > 1: k = mean·(α−1)/α); optional `cap` | min(k·U^(−1/α), cap) |
//! | `{ dist = "lognormal", mu = 5.93, sigma = 0.32 }` | `mu`, `sigma` ≥ 0 of ln(value in bytes / seconds / count) | e^(mu + sigma·N(0,1)) |
//! | `{ dist = "beta", a = 3, b = 2, min = "5s", max = "10s" }` | `a`, `b` > 0; `min` ≤ `max` | min + (max − min)·Beta(a, b) |
//! | `{ dist = "geometric", mean = 5 }` (counts only) | `mean` ≥ 1 | n ∈ {1, 2, …}, P(n) = p(1−p)^(n−1), p = 1/mean |
//!
//! With a `cap`, `mean` is that of the uncapped Pareto (as ns-2's `avg_`); the
//! capped mean is lower, see [`Dist::mean`]. Draws are in base units (bytes,
//! seconds, counts); sizes and counts are rounded to integers.

use crate::rng::Rng;
use crate::time::Dur;
use crate::units::Bytes;
use rand::Rng as _;
use serde::{de, Deserialize, Deserializer, Serialize, Serializer};
use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;

/// What a distribution's values measure: how they are written and read.
pub trait Kind {
    /// "size", "time", "count".
    const WHAT: &'static str;
    /// A plain value in base units (bytes, seconds, count) from its text.
    fn parse(s: &str) -> Result<f64, String>;
    /// A bare number as a value, if this kind allows it (counts do).
    fn number(v: f64) -> Result<f64, String>;
    /// Text that parses back to `v`.
    fn write<S: Serializer>(v: f64, s: S) -> Result<S::Ok, S::Error>;
}

/// Sizes in bytes, written with a unit (`"65kB"`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Size;
/// Times in seconds, written with a unit (`"6s"`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Time;
/// Dimensionless counts, written as numbers (`3`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Count;

impl Kind for Size {
    const WHAT: &'static str = "size";
    /// As [`Bytes::parse`], without rounding to whole bytes (`"81.5B"` is 81.5).
    fn parse(s: &str) -> Result<f64, String> {
        Bytes::parse(s)?;
        let t = s.trim();
        let split = t.find(|c: char| !(c.is_ascii_digit() || matches!(c, '.' | '-' | '+'))).unwrap_or(t.len());
        let (num, unit) = t.split_at(split);
        let unit_bytes = Bytes::parse(&format!("1000000{}", unit.trim()))?.0 as f64 / 1e6;
        Ok(num.parse::<f64>().map_err(|e| e.to_string())? * unit_bytes)
    }
    fn number(v: f64) -> Result<f64, String> {
        Err(format!("expected a size with a unit, like \"65kB\", got the bare number {v}"))
    }
    fn write<S: Serializer>(v: f64, s: S) -> Result<S::Ok, S::Error> {
        if v.fract() == 0.0 {
            Bytes(v as u64).serialize(s)
        } else {
            s.serialize_str(&format!("{v}B"))
        }
    }
}
impl Kind for Time {
    const WHAT: &'static str = "time";
    fn parse(s: &str) -> Result<f64, String> {
        Dur::parse(s).map(Dur::as_secs_f64)
    }
    fn number(v: f64) -> Result<f64, String> {
        Err(format!("expected a time with a unit, like \"6s\", got the bare number {v}"))
    }
    fn write<S: Serializer>(v: f64, s: S) -> Result<S::Ok, S::Error> {
        Dur::from_secs_f64(v).serialize(s)
    }
}
impl Kind for Count {
    const WHAT: &'static str = "count";
    fn parse(s: &str) -> Result<f64, String> {
        s.trim()
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite() && *v >= 0.0)
            .ok_or_else(|| format!("expected a non-negative number, got \"{s}\""))
    }
    fn number(v: f64) -> Result<f64, String> {
        if v.is_finite() && v >= 0.0 {
            Ok(v)
        } else {
            Err(format!("expected a non-negative number, got {v}"))
        }
    }
    fn write<S: Serializer>(v: f64, s: S) -> Result<S::Ok, S::Error> {
        if v.fract() == 0.0 {
            s.serialize_u64(v as u64)
        } else {
            s.serialize_f64(v)
        }
    }
}

/// A distribution family with its parameters in base units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Family {
    Fixed(f64),
    Uniform {
        min: f64,
        max: f64,
    },
    Exponential {
        mean: f64,
    },
    /// Pareto with minimum (scale) `k` and shape `alpha`, optionally capped.
    Pareto {
        k: f64,
        alpha: f64,
        cap: Option<f64>,
    },
    /// e^N(mu, sigma²).
    Lognormal {
        mu: f64,
        sigma: f64,
    },
    /// `min + (max − min)·Beta(a, b)`: e.g. the LTE uplink study's idle time
    /// between small files, 5 s + 5 s·Beta(3, 2) (mean 8 s within [5 s, 10 s]).
    Beta {
        a: f64,
        b: f64,
        min: f64,
        max: f64,
    },
    /// On {1, 2, ...} with the given mean.
    Geometric {
        mean: f64,
    },
}

/// A random quantity of kind `K` (see the module docs for the forms).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dist<K> {
    pub family: Family,
    kind: PhantomData<K>,
}

impl<K: Kind> Dist<K> {
    pub const fn new(family: Family) -> Self {
        Dist { family, kind: PhantomData }
    }
    pub const fn fixed(v: f64) -> Self {
        Dist::new(Family::Fixed(v))
    }

    /// One draw, in base units.
    pub fn sample(&self, rng: &mut Rng) -> f64 {
        match self.family {
            Family::Fixed(v) => v,
            Family::Uniform { min, max } => min + (max - min) * rng.random::<f64>(),
            Family::Exponential { mean } => -mean * open01(rng).ln(),
            // Inverse CDF: P(X > x) = (k/x)^α, so X = k·U^(−1/α) with U uniform on (0, 1].
            Family::Pareto { k, alpha, cap } => {
                let x = k * open01(rng).powf(-1.0 / alpha);
                cap.map_or(x, |c| x.min(c))
            }
            Family::Lognormal { mu, sigma } => (mu + sigma * standard_normal(rng)).exp(),
            Family::Beta { a, b, min, max } => {
                let beta = rand_distr::Beta::new(a, b).expect("a, b > 0 (checked when read)");
                min + (max - min) * rng.sample(beta)
            }
            // Inverse CDF: P(N > n) = (1−p)^n, so N = ⌈ln U / ln(1−p)⌉.
            Family::Geometric { mean } => {
                let p = 1.0 / mean;
                if p >= 1.0 {
                    1.0
                } else {
                    (open01(rng).ln() / (1.0 - p).ln()).ceil().max(1.0)
                }
            }
        }
    }

    /// The mean of the distribution (with a cap, of the capped draws).
    pub fn mean(&self) -> f64 {
        match self.family {
            Family::Fixed(v) => v,
            Family::Uniform { min, max } => (min + max) / 2.0,
            Family::Exponential { mean } | Family::Geometric { mean } => mean,
            Family::Pareto { k, alpha, cap } => pareto_mean(k, alpha, cap),
            Family::Lognormal { mu, sigma } => (mu + sigma * sigma / 2.0).exp(),
            Family::Beta { a, b, min, max } => min + (max - min) * a / (a + b),
        }
    }
}

impl Dist<Size> {
    /// A size draw in whole bytes.
    pub fn bytes(&self, rng: &mut Rng) -> u64 {
        self.sample(rng).round().max(0.0) as u64
    }
}
impl Dist<Time> {
    pub fn dur(&self, rng: &mut Rng) -> Dur {
        Dur::from_secs_f64(self.sample(rng).max(0.0))
    }
}
impl Dist<Count> {
    pub fn count(&self, rng: &mut Rng) -> u32 {
        self.sample(rng).round().clamp(0.0, u32::MAX as f64) as u32
    }
}

/// E[min(X, c)] for X Pareto(k, α):
/// ∫_k^c x·αk^α x^(−α−1) dx + c·(k/c)^α = αk/(α−1)·(1 − (k/c)^(α−1)) + c·(k/c)^α
///                                       = αk/(α−1) − k^α c^(1−α)/(α−1)   (α ≠ 1);
/// without a cap (c → ∞, α > 1) it is αk/(α−1).
pub fn pareto_mean(k: f64, alpha: f64, cap: Option<f64>) -> f64 {
    match cap {
        None if alpha > 1.0 => alpha * k / (alpha - 1.0),
        None => f64::INFINITY,
        Some(c) if c <= k => c,
        Some(c) if (alpha - 1.0).abs() < 1e-12 => k * (1.0 + (c / k).ln()),
        Some(c) => alpha * k / (alpha - 1.0) - k.powf(alpha) * c.powf(1.0 - alpha) / (alpha - 1.0),
    }
}

/// Uniform on (0, 1]: safe for ln and negative powers.
fn open01(rng: &mut Rng) -> f64 {
    1.0 - rng.random::<f64>()
}

/// Box–Muller (one of the pair; the other is discarded to keep draws stateless).
fn standard_normal(rng: &mut Rng) -> f64 {
    let u1 = open01(rng);
    let u2: f64 = rng.random();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// A raw parameter value: a quantity string or a number.
enum Raw {
    Text(String),
    Number(f64),
}

/// Reads a [`Raw`], refusing other values with the two forms it takes.
struct RawVisitor;

impl<'de> de::Visitor<'de> for RawVisitor {
    type Value = Raw;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a number or a string with a unit")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Raw, E> {
        Ok(Raw::Text(v.to_string()))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Raw, E> {
        Ok(Raw::Number(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Raw, E> {
        Ok(Raw::Number(v as f64))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Raw, E> {
        Ok(Raw::Number(v as f64))
    }
}

impl<'de> Deserialize<'de> for Raw {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Raw, D::Error> {
        d.deserialize_any(RawVisitor)
    }
}

impl<K: Kind> Dist<K> {
    fn from_table(mut t: BTreeMap<String, Raw>) -> Result<Self, String> {
        let name = match t.remove("dist") {
            Some(Raw::Text(s)) => s,
            Some(Raw::Number(_)) => return Err("`dist` must be a name like \"exponential\"".into()),
            None => {
                return Err(
                    "expected a distribution table with a `dist` key, like { dist = \"exponential\", mean = ... }"
                        .into(),
                )
            }
        };
        let mut take = |key: &str, quantity: bool| -> Result<Option<f64>, String> {
            match t.remove(key) {
                None => Ok(None),
                Some(Raw::Text(s)) if quantity => K::parse(&s).map(Some).map_err(|e| format!("{key}: {e}")),
                Some(Raw::Number(v)) if quantity => K::number(v).map(Some).map_err(|e| format!("{key}: {e}")),
                Some(Raw::Number(v)) if v.is_finite() => Ok(Some(v)),
                Some(_) => Err(format!("{key}: expected a number")),
            }
        };
        let need = |v: Option<f64>, key: &str, example: &str| {
            v.ok_or_else(|| format!("{name} needs `{key}` (e.g. {example})"))
        };
        let family = match name.as_str() {
            "fixed" => Family::Fixed(need(take("value", true)?, "value", "value = ...")?),
            "uniform" => {
                let (min, max) = (take("min", true)?, take("max", true)?);
                let (min, max) = (need(min, "min", "min = ...")?, need(max, "max", "max = ...")?);
                if min > max {
                    return Err("uniform: min must not exceed max".into());
                }
                Family::Uniform { min, max }
            }
            "exponential" => {
                let mean = need(take("mean", true)?, "mean", "mean = ...")?;
                if mean <= 0.0 {
                    return Err("exponential: mean must be positive".into());
                }
                Family::Exponential { mean }
            }
            "pareto" => {
                let (mean, scale) = (take("mean", true)?, take("scale", true)?);
                let alpha = need(take("shape", false)?, "shape", "shape = 1.1")?;
                let cap = take("cap", true)?;
                if alpha <= 0.0 {
                    return Err("pareto: shape must be positive".into());
                }
                let k = match (mean, scale) {
                    (Some(_), Some(_)) => return Err("pareto: give `mean` or `scale`, not both".into()),
                    (None, None) => return Err("pareto needs `mean` or `scale` (e.g. mean = ...)".into()),
                    (Some(_), None) if alpha <= 1.0 => {
                        return Err(
                            "pareto: `mean` needs shape > 1 (the mean is infinite otherwise; give `scale`)".into()
                        )
                    }
                    (Some(m), None) => m * (alpha - 1.0) / alpha,
                    (None, Some(k)) => k,
                };
                if k <= 0.0 {
                    return Err("pareto: mean/scale must be positive".into());
                }
                if cap.is_some_and(|c| c < k) {
                    return Err(format!("pareto: cap is below the scale (minimum) {k}"));
                }
                Family::Pareto { k, alpha, cap }
            }
            "lognormal" => {
                let mu = need(take("mu", false)?, "mu", "mu = 5.93")?;
                let sigma = need(take("sigma", false)?, "sigma", "sigma = 0.32")?;
                if sigma < 0.0 {
                    return Err("lognormal: sigma must be non-negative".into());
                }
                Family::Lognormal { mu, sigma }
            }
            "beta" => {
                let (a, b) = (take("a", false)?, take("b", false)?);
                let (a, b) = (need(a, "a", "a = 3")?, need(b, "b", "b = 2")?);
                let (min, max) = (take("min", true)?, take("max", true)?);
                let (min, max) = (need(min, "min", "min = ...")?, need(max, "max", "max = ...")?);
                if a <= 0.0 || b <= 0.0 {
                    return Err("beta: a and b must be positive".into());
                }
                if min > max {
                    return Err("beta: min must not exceed max".into());
                }
                Family::Beta { a, b, min, max }
            }
            "geometric" if K::WHAT == "count" => {
                let mean = need(take("mean", true)?, "mean", "mean = 5")?;
                if mean < 1.0 {
                    return Err("geometric: mean must be at least 1".into());
                }
                Family::Geometric { mean }
            }
            "geometric" => return Err(format!("geometric is for counts, not a {}", K::WHAT)),
            other => {
                return Err(format!(
                    "unknown distribution \"{other}\" (use fixed, uniform, exponential, pareto, lognormal, beta{})",
                    if K::WHAT == "count" { ", geometric" } else { "" }
                ))
            }
        };
        if let Some(extra) = t.keys().next() {
            return Err(format!("{name}: unknown parameter `{extra}`"));
        }
        Ok(Dist::new(family))
    }
}

struct DistVisitor<K>(PhantomData<K>);

impl<'de, K: Kind> de::Visitor<'de> for DistVisitor<K> {
    type Value = Dist<K>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "a {} or a distribution table like {{ dist = \"exponential\", mean = ... }}", K::WHAT)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Dist<K>, E> {
        K::parse(v).map(Dist::fixed).map_err(E::custom)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Dist<K>, E> {
        K::number(v as f64).map(Dist::fixed).map_err(E::custom)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Dist<K>, E> {
        K::number(v as f64).map(Dist::fixed).map_err(E::custom)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Dist<K>, E> {
        K::number(v).map(Dist::fixed).map_err(E::custom)
    }
    fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<Dist<K>, A::Error> {
        let mut t = BTreeMap::new();
        while let Some((k, v)) = map.next_entry::<String, Raw>()? {
            t.insert(k, v);
        }
        Dist::from_table(t).map_err(de::Error::custom)
    }
}

impl<'de, K: Kind> Deserialize<'de> for Dist<K> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(DistVisitor(PhantomData))
    }
}

/// Writes a form that reads back: a plain quantity or the distribution table.
impl<K: Kind> Serialize for Dist<K> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        struct Q<K>(f64, PhantomData<K>);
        impl<K: Kind> Serialize for Q<K> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                K::write(self.0, s)
            }
        }
        let q = |v: f64| Q::<K>(v, PhantomData);
        if let Family::Fixed(v) = self.family {
            return K::write(v, s);
        }
        let mut m = s.serialize_map(None)?;
        match self.family {
            Family::Fixed(_) => unreachable!(),
            Family::Uniform { min, max } => {
                m.serialize_entry("dist", "uniform")?;
                m.serialize_entry("min", &q(min))?;
                m.serialize_entry("max", &q(max))?;
            }
            Family::Exponential { mean } => {
                m.serialize_entry("dist", "exponential")?;
                m.serialize_entry("mean", &q(mean))?;
            }
            Family::Pareto { k, alpha, cap } => {
                m.serialize_entry("dist", "pareto")?;
                m.serialize_entry("scale", &q(k))?;
                m.serialize_entry("shape", &alpha)?;
                if let Some(c) = cap {
                    m.serialize_entry("cap", &q(c))?;
                }
            }
            Family::Lognormal { mu, sigma } => {
                m.serialize_entry("dist", "lognormal")?;
                m.serialize_entry("mu", &mu)?;
                m.serialize_entry("sigma", &sigma)?;
            }
            Family::Beta { a, b, min, max } => {
                m.serialize_entry("dist", "beta")?;
                m.serialize_entry("a", &a)?;
                m.serialize_entry("b", &b)?;
                m.serialize_entry("min", &q(min))?;
                m.serialize_entry("max", &q(max))?;
            }
            Family::Geometric { mean } => {
                m.serialize_entry("dist", "geometric")?;
                m.serialize_entry("mean", &q(mean))?;
            }
        }
        m.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream;

    fn parse<K: Kind>(toml_value: &str) -> Result<Dist<K>, String> {
        let t: toml::Table = format!("v = {toml_value}").parse().unwrap();
        Dist::<K>::deserialize(t["v"].clone()).map_err(|e| e.to_string())
    }

    fn draws<K: Kind>(d: &Dist<K>, n: usize, name: &str) -> Vec<f64> {
        let mut rng = stream(42, name);
        (0..n).map(|_| d.sample(&mut rng)).collect()
    }

    fn mean(v: &[f64]) -> f64 {
        v.iter().sum::<f64>() / v.len() as f64
    }

    /// HS-DSCH web sizes: Pareto mean 25 kB, shape 1.1, capped at 2 MB.
    /// Scale k = mean·(α−1)/α = 25000·0.1/1.1 = 2272.73 B. The cap removes the
    /// tail above c = 2 MB: E[min(X, c)] = αk/(α−1) − k^α·c^(1−α)/(α−1)
    /// = 25000 − 2272.73·(2272.73/2e6)^0.1/0.1 = 25000 − 2272.73·0.5077·10
    /// ≈ 25000 − 11539 = 13461 B. Its standard deviation is ≈ 71.5 kB, so 10^6
    /// draws put the sample mean within ±0.5% (1σ) of it; we allow 5%.
    #[test]
    fn pareto_sample_mean_matches_the_capped_mean() {
        let d: Dist<Size> = parse(r#"{ dist = "pareto", mean = "25kB", shape = 1.1, cap = "2MB" }"#).unwrap();
        let Family::Pareto { k, alpha, cap } = d.family else { panic!() };
        assert!((k - 2272.727).abs() < 0.01 && alpha == 1.1 && cap == Some(2e6));
        let expected = d.mean();
        assert!((expected - 13461.0).abs() < 5.0, "capped mean {expected}");
        let v = draws(&d, 1_000_000, "pareto");
        let m = mean(&v);
        assert!((m / expected - 1.0).abs() < 0.05, "sample mean {m:.0} vs capped mean {expected:.0}");
        assert!(v.iter().all(|&x| x >= k && x <= 2e6));
        // Shape: P(X > x) = (k/x)^α below the cap; at x = 10k that is 10^-1.1 = 0.0794.
        let tail = v.iter().filter(|&&x| x > 10.0 * k).count() as f64 / v.len() as f64;
        assert!((tail - 0.0794).abs() < 0.002, "tail {tail}");
        // The uncapped mean differs: the cap must be accounted for.
        assert!((m / 25_000.0 - 1.0).abs() > 0.2);
    }

    /// WCDMA request size: ln(size in bytes) ~ N(5.93, 0.32²), median e^5.93 = 376 B.
    #[test]
    fn lognormal_request_size_has_median_e_to_the_5_93() {
        let d: Dist<Size> = parse(r#"{ dist = "lognormal", mu = 5.93, sigma = 0.32 }"#).unwrap();
        let mut v = draws(&d, 200_001, "lognormal");
        v.sort_by(f64::total_cmp);
        let median = v[v.len() / 2];
        assert!((median / 5.93f64.exp() - 1.0).abs() < 0.01, "median {median} vs {}", 5.93f64.exp());
        let logs: Vec<f64> = v.iter().map(|x| x.ln()).collect();
        let m = mean(&logs);
        let sd = (logs.iter().map(|l| (l - m).powi(2)).sum::<f64>() / logs.len() as f64).sqrt();
        assert!((m - 5.93).abs() < 0.005 && (sd - 0.32).abs() < 0.005, "ln mean {m}, ln sd {sd}");
    }

    #[test]
    fn exponential_mean_and_memorylessness() {
        let d: Dist<Size> = parse(r#"{ dist = "exponential", mean = "300kB" }"#).unwrap();
        let v = draws(&d, 400_000, "exp");
        let m = mean(&v);
        assert!((m / 300e3 - 1.0).abs() < 0.01, "mean {m}");
        // P(X > mean) = e^-1.
        let above = v.iter().filter(|&&x| x > 300e3).count() as f64 / v.len() as f64;
        assert!((above - (-1.0f64).exp()).abs() < 0.005, "P(X > mean) = {above}");
    }

    /// The LTE uplink study's idle time: 5 s + 5 s·Beta(3, 2). Mean 5 + 5·3/5 = 8 s;
    /// Beta(3, 2) has variance ab/((a+b)²(a+b+1)) = 6/150 = 0.04, so the idle
    /// time's is 25·0.04 = 1 s²; its mode (a−1)/(a+b−2) = 2/3 puts the peak at 8.33 s;
    /// P(Beta(3, 2) ≤ 1/2) = 4x³ − 3x⁴ at 1/2 = 0.3125.
    #[test]
    fn beta_scaled_to_an_interval() {
        let d: Dist<Time> = parse(r#"{ dist = "beta", a = 3, b = 2, min = "5s", max = "10s" }"#).unwrap();
        assert_eq!(d.mean(), 8.0);
        let v = draws(&d, 200_000, "beta");
        assert!(v.iter().all(|&x| (5.0..=10.0).contains(&x)));
        let m = mean(&v);
        let var = v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / v.len() as f64;
        assert!((m - 8.0).abs() < 0.01 && (var - 1.0).abs() < 0.02, "mean {m}, variance {var}");
        let below = v.iter().filter(|&&x| x <= 7.5).count() as f64 / v.len() as f64;
        assert!((below - 0.3125).abs() < 0.004, "P(idle ≤ 7.5 s) = {below}");
        assert_eq!(
            parse::<Time>(r#"{ dist = "beta", a = 0, b = 2, min = "5s", max = "10s" }"#).unwrap_err(),
            "beta: a and b must be positive\n"
        );
        assert!(parse::<Time>(r#"{ dist = "beta", a = 3, b = 2, min = "5s" }"#).unwrap_err().contains("`max`"));
    }

    #[test]
    fn uniform_stays_in_bounds_and_fills_them() {
        let d: Dist<Time> = parse(r#"{ dist = "uniform", min = "5s", max = "10s" }"#).unwrap();
        let v = draws(&d, 100_000, "uniform");
        let (lo, hi) = v.iter().fold((f64::MAX, f64::MIN), |(a, b), &x| (a.min(x), b.max(x)));
        assert!(lo >= 5.0 && hi <= 10.0, "[{lo}, {hi}]");
        assert!(lo < 5.01 && hi > 9.99, "[{lo}, {hi}] does not fill [5, 10]");
        assert!((mean(&v) - 7.5).abs() < 0.02);
    }

    #[test]
    fn geometric_counts_have_their_mean() {
        let d: Dist<Count> = parse(r#"{ dist = "geometric", mean = 5 }"#).unwrap();
        let mut rng = stream(1, "geo");
        let v: Vec<f64> = (0..200_000).map(|_| d.count(&mut rng) as f64).collect();
        assert!(v.iter().all(|&n| n >= 1.0));
        assert!((mean(&v) / 5.0 - 1.0).abs() < 0.02, "mean {}", mean(&v));
    }

    #[test]
    fn plain_values_are_fixed_and_forms_read_back() {
        assert_eq!(parse::<Size>("\"65kB\"").unwrap().family, Family::Fixed(65_000.0));
        assert_eq!(parse::<Time>("\"6s\"").unwrap().family, Family::Fixed(6.0));
        assert_eq!(parse::<Count>("3").unwrap().family, Family::Fixed(3.0));
        assert_eq!(parse::<Size>("\"81.5B\"").unwrap().family, Family::Fixed(81.5));
        assert_eq!(parse::<Size>("\"2kbit\"").unwrap().family, Family::Fixed(250.0));
        for text in [
            r#"{ dist = "pareto", mean = "25kB", shape = 1.1, cap = "2MB" }"#,
            r#"{ dist = "uniform", min = "5s", max = "10s" }"#,
            r#"{ dist = "lognormal", mu = 5.93, sigma = 0.32 }"#,
            "\"250kB\"",
        ] {
            let d: Dist<Size> = match parse(text) {
                Ok(d) => d,
                Err(_) => continue, // the time example is not a size
            };
            let back: Dist<Size> = serde_json::from_str(&serde_json::to_string(&d).unwrap()).unwrap();
            assert!((back.mean() / d.mean() - 1.0).abs() < 1e-3, "{text}");
        }
    }

    #[test]
    fn errors_are_one_line_and_say_what_is_wrong() {
        let e = parse::<Size>("65").unwrap_err();
        assert!(e.contains("bare number"), "{e}");
        let e = parse::<Size>(r#"{ dist = "pareto", mean = "25kB" }"#).unwrap_err();
        assert!(e.contains("needs `shape`"), "{e}");
        let e = parse::<Time>(r#"{ dist = "uniform", min = "10s", max = "5s" }"#).unwrap_err();
        assert!(e.contains("min must not exceed max"), "{e}");
        let e = parse::<Time>(r#"{ dist = "normal", mean = "1s" }"#).unwrap_err();
        assert!(e.contains("unknown distribution \"normal\""), "{e}");
        let e = parse::<Size>(r#"{ dist = "exponential", mean = "3kB", sd = "1kB" }"#).unwrap_err();
        assert!(e.contains("unknown parameter `sd`"), "{e}");
        let e = parse::<Size>(r#"{ dist = "exponential", mean = "3ks" }"#).unwrap_err();
        assert!(e.starts_with("mean: unknown size unit"), "{e}");
        assert!(!e.trim_end().contains('\n'), "{e:?}");
    }
}
