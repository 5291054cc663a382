//! One parser per user input: what a person asks for, however they asked (the CLI's flags, the
//! page's boxes, the JavaScript API's objects), read once, with one set of defaults and one
//! wording for every mistake.
//!
//! - [`window`]: a tensor window (`rows`, `cols`, a NumPy structured array's `field`) →
//!   [`WindowSpec`], checked against the tensor's geometry into a
//!   [`crate::preview::WindowRequest`], or a [`WindowError`].
//! - [`devices`]: the devices and plan options of a fit ([`DeviceSpec`], [`OptionsSpec`]) →
//!   [`crate::summary::fit::Devices`] and [`crate::summary::fit::FitOptions`], or a
//!   [`DeviceError`].
//!
//! Every spec is a serde `Deserialize` type in the JavaScript API's shape (the JSON the API
//! documents in `www/weightpeek.d.ts`), and has plain constructors for the CLI's and the page's
//! text. Its errors' `Display` names the input by its key in that shape (`rows`, `gpus[1]`,
//! `ram`); [`Front`] gives the same message with the name the person typed in one front end
//! (`--rows`, `window.rows`, `RAM`): `WindowError::text_for`, `DeviceError::text_for`.

mod device_error;
pub mod devices;
pub mod window;

#[cfg(test)]
mod tests;

pub use device_error::{DeviceError, DeviceInput};
pub use devices::{ContextSpec, DeviceSpec, GpuSpec, Gpus, OptionsSpec, SizeSpec, TextSpec};
pub use window::{Axis, RangeSpec, WindowError, WindowSpec};

/// The front ends, defined with the wording of every failure ([`crate::view::errors`]).
pub use super::errors::Front;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

/// Largest integer a JavaScript number holds exactly (2^53): the most a number may be where a
/// whole number is asked.
pub const MAX_SAFE: f64 = 9_007_199_254_740_992.0;

/// `x` as a whole number from `min` to 2^53, or `None`.
fn whole(x: f64, min: f64) -> Option<u64> {
    (x.is_finite() && x >= min && x.fract() == 0.0 && x <= MAX_SAFE).then_some(x as u64)
}

/// Any value as given (JSON, or a JavaScript value through `serde_wasm_bindgen`), kept so a
/// spec's fields can say what is wrong with it instead of failing the whole object.
#[derive(Debug, Clone, PartialEq)]
enum Loose {
    /// `null`, `undefined`.
    Absent,
    /// A number (JavaScript numbers are doubles; a JSON integer is read as one).
    Number(f64),
    /// A string.
    Text(String),
    /// An array.
    List(Vec<Loose>),
    /// An object's fields.
    Map(Vec<(String, Loose)>),
    /// Anything else (a boolean, bytes).
    Other,
}

impl Loose {
    /// The field `key` of an object (`Absent` when missing or not an object).
    fn get(&self, key: &str) -> &Loose {
        match self {
            Loose::Map(m) => m
                .iter()
                .find(|(k, _)| k == key)
                .map_or(&Loose::Absent, |(_, v)| v),
            _ => &Loose::Absent,
        }
    }
}

struct LooseVisitor;

impl<'de> Visitor<'de> for LooseVisitor {
    type Value = Loose;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any value")
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Loose, E> {
        Ok(Loose::Other)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Loose, E> {
        Ok(Loose::Number(v as f64))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Loose, E> {
        Ok(Loose::Number(v as f64))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Loose, E> {
        Ok(Loose::Number(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Loose, E> {
        Ok(Loose::Text(v.to_string()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Loose, E> {
        Ok(Loose::Text(v))
    }
    fn visit_bytes<E: de::Error>(self, _: &[u8]) -> Result<Loose, E> {
        Ok(Loose::Other)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Loose, E> {
        Ok(Loose::Absent)
    }
    fn visit_none<E: de::Error>(self) -> Result<Loose, E> {
        Ok(Loose::Absent)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Loose, D::Error> {
        Loose::deserialize(d)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Loose, A::Error> {
        let mut out = Vec::new();
        while let Some(v) = seq.next_element::<Loose>()? {
            out.push(v);
        }
        Ok(Loose::List(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Loose, A::Error> {
        let mut out = Vec::new();
        while let Some((k, v)) = map.next_entry::<Loose, Loose>()? {
            // A key that is not text (a JavaScript `Map` may have any) names no field.
            if let Loose::Text(k) = k {
                out.push((k, v));
            }
        }
        Ok(Loose::Map(out))
    }
}

impl<'de> Deserialize<'de> for Loose {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(LooseVisitor)
    }
}
