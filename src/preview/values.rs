//! A previewed value as text: what the page, the CLI and `--json`'s `text` show, and the raw
//! form the page puts in `data-value` attributes.

use crate::dequant::Exact;

/// A value as text: Rust's shortest round-trip form (`0.012345678`), in exponent form below
/// 1e-4 or from 1e7 in magnitude (`-3e-8`), and `NaN`, `inf`, `-inf`.
pub fn value_text(v: f32) -> String {
    float_text(f64::from(v), v.to_string(), format!("{v:e}"))
}

/// [`value_text`] for an `f64`: the shortest text that reads back as the same double.
pub fn value_text_f64(v: f64) -> String {
    float_text(v, v.to_string(), format!("{v:e}"))
}

fn float_text(v: f64, plain: String, exp: String) -> String {
    let a = v.abs();
    if v.is_nan() {
        "NaN".into()
    } else if v.is_finite() && a != 0.0 && !(1e-4..1e7).contains(&a) {
        exp
    } else {
        plain
    }
}

/// An exact value as text: floats as [`value_text`] / [`value_text_f64`] in their own precision,
/// integers with every digit, `true` / `false`, and a complex value as `re + im i` (`1.5 - 2i`).
pub fn exact_text(v: Exact) -> String {
    match v {
        Exact::F32(x) => value_text(x),
        Exact::F64(x) => value_text_f64(x),
        Exact::Int(i) => i.to_string(),
        Exact::UInt(u) => u.to_string(),
        Exact::Bool(b) => b.to_string(),
        Exact::Complex(re, im) => {
            let sign = if im.is_sign_negative() && !im.is_nan() {
                '-'
            } else {
                '+'
            };
            format!("{} {sign} {}i", value_text(re), value_text(im.abs()))
        }
        Exact::Complex128(re, im) => {
            let sign = if im.is_sign_negative() && !im.is_nan() {
                '-'
            } else {
                '+'
            };
            format!(
                "{} {sign} {}i",
                value_text_f64(re),
                value_text_f64(im.abs())
            )
        }
    }
}

fn float_raw(v: f64) -> String {
    if v.is_nan() {
        "NaN".into()
    } else if v.is_infinite() {
        if v > 0.0 { "Infinity" } else { "-Infinity" }.into()
    } else {
        format!("{v:?}")
    }
}

/// An exact value as a JavaScript-readable number: `Number(raw)` gives the value as a double
/// (the exact double for every float; `NaN`, `Infinity`, `-Infinity` included), `BigInt(raw)` an
/// integer with every digit; a boolean is `0` or `1`; a complex value `re,im`.
pub fn exact_raw(v: Exact) -> String {
    match v {
        Exact::F32(x) => float_raw(f64::from(x)),
        Exact::F64(x) => float_raw(x),
        Exact::Int(i) => i.to_string(),
        Exact::UInt(u) => u.to_string(),
        Exact::Bool(b) => u8::from(b).to_string(),
        Exact::Complex(re, im) => {
            format!("{},{}", float_raw(f64::from(re)), float_raw(f64::from(im)))
        }
        Exact::Complex128(re, im) => format!("{},{}", float_raw(re), float_raw(im)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_precision_keeps_its_own_shortest_text() {
        assert_eq!(value_text(0.1), "0.1");
        assert_eq!(
            exact_text(Exact::F64(f64::from(0.1f32))),
            "0.10000000149011612"
        );
        assert_eq!(exact_text(Exact::F64(1e300)), "1e300");
        assert_eq!(exact_text(Exact::UInt(u64::MAX)), "18446744073709551615");
        assert_eq!(exact_text(Exact::Int(i64::MIN)), "-9223372036854775808");
        assert_eq!(exact_text(Exact::Complex(1.5, -2.0)), "1.5 - 2i");
        assert_eq!(exact_text(Exact::Complex(0.0, f32::NAN)), "0 + NaNi");
        assert_eq!(exact_text(Exact::Bool(true)), "true");
        assert_eq!(exact_raw(Exact::F32(f32::NEG_INFINITY)), "-Infinity");
        assert_eq!(exact_raw(Exact::F32(0.1)), "0.10000000149011612");
        assert_eq!(exact_raw(Exact::Bool(false)), "0");
        assert_eq!(exact_raw(Exact::Complex(1.0, -0.5)), "1.0,-0.5");
        assert_eq!(exact_text(Exact::Complex128(0.1, -1e-300)), "0.1 - 1e-300i");
        assert_eq!(exact_raw(Exact::Complex128(0.1, 2.0)), "0.1,2.0");
    }
}
