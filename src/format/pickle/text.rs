//! The text arguments of protocol 0 (integers, floats, quoted strings, raw-unicode-escape) and
//! the string decodings of the binary opcodes, as CPython 3.11's `_pickle` reads them, and
//! the integers too large for an `i64` (decimal digits from a small base-10⁹ bignum).
//!
//! Every function here is total: bad text is an `Err` with the reason, never a panic, and no
//! loop runs longer than its input (the decimal conversion is quadratic, so its callers cap
//! the digits, see [`super::Limits::max_int_digits`]).

/// Why a protocol-0 text argument could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TextError {
    /// Not an integer as Python's `int()` reads one: the text's first [`SHOWN_KEPT`] bytes.
    Int(Vec<u8>),
    /// Not a float: the text's first [`SHOWN_KEPT`] bytes.
    Float(Vec<u8>),
    /// A STRING argument not between matching quotes.
    Unquoted,
    /// A STRING argument ending in a lone backslash.
    TrailingBackslash,
    /// A `\x` escape without two hex digits in a STRING.
    BadHexEscape {
        /// The escape's backslash, as an index into the text between the quotes.
        at: usize,
    },
    /// A `\u` or `\U` escape cut short in a UNICODE argument.
    TruncatedUnicodeEscape {
        /// Whether it is `\U` (8 hex digits), not `\u` (4).
        long: bool,
        /// The index of the run of backslashes before it, in the argument's bytes.
        at: usize,
    },
    /// A `\U` escape beyond U+10FFFF (the code point as read).
    BeyondUnicode(u32),
}

/// Most bytes [`shown`] writes of a text (an ellipsis follows when there are more).
const SHOWN_MAX: usize = 40;

/// Bytes of a bad literal kept for its message: [`shown`] of them is [`shown`] of the whole.
const SHOWN_KEPT: usize = SHOWN_MAX + 1;

impl TextError {
    /// The error of the bad literal `text` (`float`: a FLOAT's, else an integer's).
    fn literal(text: &[u8], float: bool) -> TextError {
        let kept = text[..text.len().min(SHOWN_KEPT)].to_vec();
        if float {
            TextError::Float(kept)
        } else {
            TextError::Int(kept)
        }
    }
}

impl std::fmt::Display for TextError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TextError::Int(text) => write!(f, "invalid integer literal {}", shown(text)),
            TextError::Float(text) => write!(f, "invalid float literal {}", shown(text)),
            TextError::Unquoted => write!(f, "the STRING opcode argument must be quoted"),
            TextError::TrailingBackslash => write!(f, "a trailing \\ in the STRING"),
            TextError::BadHexEscape { at } => write!(f, "invalid \\x escape at position {at}"),
            TextError::TruncatedUnicodeEscape { long, at } => write!(
                f,
                "truncated \\{} escape at byte {at}",
                if *long { "UXXXXXXXX" } else { "uXXXX" }
            ),
            TextError::BeyondUnicode(v) => write!(f, "\\U{v:08x} is beyond U+10FFFF"),
        }
    }
}

impl std::error::Error for TextError {}

/// An integer read from a pickle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Int {
    /// It fits an `i64`.
    Small(i64),
    /// It does not: its decimal digits with a leading `-` when negative, or a note (starting
    /// with `(`) when it was too long to convert.
    Big(String),
}

/// ASCII whitespace as CPython's `Py_ISSPACE` sees it.
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

fn digit_value(b: u8) -> Option<u32> {
    match b {
        b'0'..=b'9' => Some(u32::from(b - b'0')),
        b'a'..=b'z' => Some(u32::from(b - b'a') + 10),
        b'A'..=b'Z' => Some(u32::from(b - b'A') + 10),
        _ => None,
    }
}

/// Python's `int(text, base)` for base 0 (a `0x`/`0o`/`0b` prefix picks the base; other
/// leading zeros only for zero) or base 10: surrounding whitespace, a sign, single
/// underscores between digits. `max_digits` caps the digits converted from a base other than
/// 10 (a longer one gives a note); decimal digits are kept as written, whatever their number.
pub(crate) fn py_int(text: &[u8], base0: bool, max_digits: u32) -> Result<Int, TextError> {
    let bad = || TextError::literal(text, false);
    let mut s = text;
    while let [b, rest @ ..] = s {
        if !is_space(*b) {
            break;
        }
        s = rest;
    }
    while let [rest @ .., b] = s {
        if !is_space(*b) {
            break;
        }
        s = rest;
    }
    let negative = match s.first() {
        Some(b'-') => {
            s = &s[1..];
            true
        }
        Some(b'+') => {
            s = &s[1..];
            false
        }
        _ => false,
    };
    let mut base = 10u32;
    let mut prefixed = false;
    let mut zero_only = false;
    if base0 && s.first() == Some(&b'0') {
        match s.get(1).map(u8::to_ascii_lowercase) {
            Some(b'x') => (base, prefixed) = (16, true),
            Some(b'o') => (base, prefixed) = (8, true),
            Some(b'b') => (base, prefixed) = (2, true),
            // An old C-style octal literal: only zero is allowed ("00", "0_0").
            _ => zero_only = true,
        }
        if prefixed {
            s = &s[2..];
            // One underscore may follow the prefix ("0x_ff").
            if s.first() == Some(&b'_') {
                s = &s[1..];
            }
        }
    }
    // Digits with single underscores between them.
    let mut digits: Vec<u32> = Vec::with_capacity(s.len());
    let mut last_underscore = true; // no leading underscore
    for &b in s {
        if b == b'_' {
            if last_underscore {
                return Err(bad());
            }
            last_underscore = true;
            continue;
        }
        match digit_value(b) {
            Some(d) if d < base => digits.push(d),
            _ => return Err(bad()),
        }
        last_underscore = false;
    }
    if digits.is_empty() || last_underscore {
        return Err(bad());
    }
    if zero_only && digits.iter().any(|&d| d != 0) {
        return Err(bad());
    }
    Ok(from_digits(&digits, base, negative, max_digits))
}

/// The integer of `digits` (most significant first) in `base`.
fn from_digits(digits: &[u32], base: u32, negative: bool, max_digits: u32) -> Int {
    let first = digits.iter().position(|&d| d != 0).unwrap_or(digits.len());
    let digits = &digits[first..];
    // Up to 18 decimal digits (or the equivalent) always fit an i128 below any overflow.
    let mut small: i128 = 0;
    let mut fits = true;
    for &d in digits {
        match small
            .checked_mul(i128::from(base))
            .and_then(|v| v.checked_add(i128::from(d)))
        {
            Some(v) if v <= i128::from(u64::MAX) => small = v,
            _ => {
                fits = false;
                break;
            }
        }
    }
    if fits {
        let v = if negative { -small } else { small };
        return match i64::try_from(v) {
            Ok(v) => Int::Small(v),
            Err(_) => Int::Big(v.to_string()),
        };
    }
    let sign = if negative { "-" } else { "" };
    if base == 10 {
        let text: String = digits.iter().map(|&d| char::from(b'0' + d as u8)).collect();
        return Int::Big(format!("{sign}{text}"));
    }
    if digits.len() as u64 > u64::from(max_digits) {
        return Int::Big(format!(
            "(an integer of {} base-{base} digits, not converted to decimal)",
            digits.len()
        ));
    }
    Int::Big(format!("{sign}{}", decimal(digits.iter().copied(), base)))
}

/// The decimal digits of the non-negative number whose digits in `base` (most significant
/// first) `digits` yields: a base-10⁹ bignum, one multiply-add per digit.
fn decimal(digits: impl Iterator<Item = u32>, base: u32) -> String {
    const LIMB: u64 = 1_000_000_000;
    let mut limbs: Vec<u32> = Vec::new(); // least significant first
    for d in digits {
        let mut carry = u64::from(d);
        for l in limbs.iter_mut() {
            let v = u64::from(*l) * u64::from(base) + carry;
            *l = (v % LIMB) as u32;
            carry = v / LIMB;
        }
        while carry > 0 {
            limbs.push((carry % LIMB) as u32);
            carry /= LIMB;
        }
    }
    let mut out = match limbs.last() {
        Some(top) => top.to_string(),
        None => return "0".to_string(),
    };
    for l in limbs.iter().rev().skip(1) {
        out.push_str(&format!("{l:09}"));
    }
    out
}

/// A little-endian two's complement integer (LONG1, LONG4), as Python's `decode_long` reads
/// it: `b""` is 0. Longer than `max_digits` decimal digits could hold, it is a note.
pub(crate) fn long_le(bytes: &[u8], max_digits: u32) -> Int {
    // Drop redundant sign bytes, so an over-long encoding of a small number stays small.
    let mut n = bytes.len();
    while n > 1 {
        let (top, next) = (bytes[n - 1], bytes[n - 2]);
        if (top == 0x00 && next & 0x80 == 0) || (top == 0xff && next & 0x80 != 0) {
            n -= 1;
        } else {
            break;
        }
    }
    let bytes = &bytes[..n];
    let negative = bytes.last().is_some_and(|&b| b & 0x80 != 0);
    if bytes.len() <= 16 {
        let mut buf = [if negative { 0xff } else { 0 }; 16];
        buf[..bytes.len()].copy_from_slice(bytes);
        let v = i128::from_le_bytes(buf);
        return match i64::try_from(v) {
            Ok(v) => Int::Small(v),
            Err(_) => Int::Big(v.to_string()),
        };
    }
    // Each byte is 2.408 decimal digits.
    if (bytes.len() as u64).saturating_mul(2408) / 1000 > u64::from(max_digits) {
        return Int::Big(format!(
            "(an integer of {} bytes, not converted to decimal)",
            bytes.len()
        ));
    }
    // The magnitude: for a negative number, invert and add one.
    let mut mag = bytes.to_vec();
    if negative {
        let mut carry = true;
        for b in mag.iter_mut() {
            *b = !*b;
            if carry {
                let (v, c) = b.overflowing_add(1);
                *b = v;
                carry = c;
            }
        }
    }
    let text = decimal(mag.iter().rev().map(|&b| u32::from(b)), 256);
    Int::Big(if negative { format!("-{text}") } else { text })
}

/// libc `strtol(s, &end, 0)` on a 64-bit `long`, as `_pickle.c`'s INT reads first: leading
/// whitespace, a sign, `0x` hex or C-style octal after a leading `0`, else decimal. `Some`
/// only when the number ends the line and fits; `None` sends the caller to [`py_int`].
pub(crate) fn c_strtol(line: &[u8]) -> Option<i64> {
    let mut i = 0;
    while i < line.len() && is_space(line[i]) {
        i += 1;
    }
    let negative = match line.get(i) {
        Some(b'-') => {
            i += 1;
            true
        }
        Some(b'+') => {
            i += 1;
            false
        }
        _ => false,
    };
    let mut base = 10u32;
    if line.get(i) == Some(&b'0') {
        let hex = matches!(line.get(i + 1), Some(b'x' | b'X'))
            && line
                .get(i + 2)
                .and_then(|&b| digit_value(b))
                .is_some_and(|d| d < 16);
        if hex {
            base = 16;
            i += 2;
        } else {
            base = 8;
        }
    }
    let start = i;
    let mut v: i128 = 0;
    while let Some(d) = line
        .get(i)
        .and_then(|&b| digit_value(b))
        .filter(|&d| d < base)
    {
        v = v * i128::from(base) + i128::from(d);
        if v > i128::from(u64::MAX) {
            return None; // ERANGE
        }
        i += 1;
    }
    if i == start || i != line.len() {
        return None;
    }
    let v = if negative { -v } else { v };
    i64::try_from(v).ok()
}

/// A protocol-0 FLOAT's text. CPython refuses what Rust's parser refuses here except that an
/// overflowing exponent is infinity here (CPython: OverflowError); reading more than Python
/// would is the safe side for a scanner.
pub(crate) fn float(line: &[u8]) -> Result<f64, TextError> {
    std::str::from_utf8(line)
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .ok_or_else(|| TextError::literal(line, true))
}

/// The bytes of a protocol-0 STRING argument (`'…'` or `"…"`, Python bytes-literal escapes),
/// as `PyBytes_DecodeEscape` gives them.
pub(crate) fn quoted_string(line: &[u8]) -> Result<Vec<u8>, TextError> {
    let n = line.len();
    if n < 2 || line[0] != line[n - 1] || !matches!(line[0], b'\'' | b'"') {
        return Err(TextError::Unquoted);
    }
    let s = &line[1..n - 1];
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        let c = s[i];
        i += 1;
        if c != b'\\' {
            out.push(c);
            continue;
        }
        let Some(&e) = s.get(i) else {
            return Err(TextError::TrailingBackslash);
        };
        i += 1;
        match e {
            b'\n' => {}
            b'\\' | b'\'' | b'"' => out.push(e),
            b'b' => out.push(0x08),
            b'f' => out.push(0x0c),
            b't' => out.push(b'\t'),
            b'n' => out.push(b'\n'),
            b'r' => out.push(b'\r'),
            b'v' => out.push(0x0b),
            b'a' => out.push(0x07),
            b'0'..=b'7' => {
                let mut v = u32::from(e - b'0');
                for _ in 0..2 {
                    match s.get(i) {
                        Some(&d @ b'0'..=b'7') => {
                            v = v * 8 + u32::from(d - b'0');
                            i += 1;
                        }
                        _ => break,
                    }
                }
                out.push((v & 0xff) as u8); // CPython keeps the low byte of \400..\777
            }
            b'x' => {
                let hex = s.get(i..i + 2).and_then(|h| {
                    Some(
                        digit_value(h[0]).filter(|&d| d < 16)? * 16
                            + digit_value(h[1]).filter(|&d| d < 16)?,
                    )
                });
                match hex {
                    Some(v) => {
                        out.push(v as u8);
                        i += 2;
                    }
                    None => return Err(TextError::BadHexEscape { at: i - 2 }),
                }
            }
            // An unknown escape keeps its backslash.
            _ => {
                out.push(b'\\');
                i -= 1;
            }
        }
    }
    Ok(out)
}

/// Decoded text and whether anything in it could not be kept as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Decoded {
    /// The text; each lone surrogate and each byte run that is not UTF-8 is U+FFFD.
    pub text: String,
    /// Lone surrogates (which Python keeps and Rust's `String` cannot) were replaced.
    pub surrogates: bool,
    /// Bytes that are not UTF-8 even with surrogates allowed were replaced (Python refuses
    /// the file there).
    pub invalid: bool,
}

/// UTF-8 with CPython's `surrogatepass` (how BINUNICODE and friends are decoded): an encoded
/// surrogate (`ED A0..BF 80..BF`) becomes one U+FFFD, as does each maximal invalid run.
pub(crate) fn utf8(bytes: &[u8]) -> Decoded {
    let mut d = Decoded {
        text: String::new(),
        surrogates: false,
        invalid: false,
    };
    let mut rest = bytes;
    loop {
        match std::str::from_utf8(rest) {
            Ok(s) => {
                d.text.push_str(s);
                return d;
            }
            Err(e) => {
                let (good, bad) = rest.split_at(e.valid_up_to());
                // `good` is valid UTF-8 by the error's own report.
                d.text
                    .push_str(std::str::from_utf8(good).unwrap_or_default());
                let skip = match bad {
                    [0xed, 0xa0..=0xbf, 0x80..=0xbf, ..] => {
                        d.surrogates = true;
                        3
                    }
                    _ => {
                        d.invalid = true;
                        e.error_len().unwrap_or(bad.len())
                    }
                };
                d.text.push('\u{fffd}');
                rest = &bad[skip.min(bad.len())..];
            }
        }
    }
}

/// Python 3.11's `raw_unicode_escape` decoding (protocol-0 UNICODE): bytes are Latin-1
/// characters, except that `\uXXXX` and `\UXXXXXXXX` are escapes after an odd run of
/// backslashes.
pub(crate) fn raw_unicode_escape(bytes: &[u8]) -> Result<Decoded, TextError> {
    let mut d = Decoded {
        text: String::with_capacity(bytes.len()),
        surrogates: false,
        invalid: false,
    };
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c != b'\\' {
            d.text.push(char::from(c));
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && bytes[i] == b'\\' {
            d.text.push('\\');
            i += 1;
        }
        let odd = (i - start) % 2 == 1;
        let count = match bytes.get(i) {
            Some(b'u') if odd => 4,
            Some(b'U') if odd => 8,
            _ => continue,
        };
        d.text.pop(); // the escaping backslash
        i += 1;
        let hex = bytes
            .get(i..i + count)
            .filter(|h| h.iter().all(u8::is_ascii_hexdigit))
            .ok_or(TextError::TruncatedUnicodeEscape {
                long: count == 8,
                at: start,
            })?;
        let v = hex
            .iter()
            .fold(0u32, |v, &h| v * 16 + digit_value(h).unwrap_or(0));
        i += count;
        if v > 0x10ffff {
            return Err(TextError::BeyondUnicode(v));
        }
        match char::from_u32(v) {
            Some(ch) => d.text.push(ch),
            None => {
                d.surrogates = true;
                d.text.push('\u{fffd}');
            }
        }
    }
    Ok(d)
}

/// Up to 40 bytes of `b` for a message, escaped.
pub(crate) fn shown(b: &[u8]) -> String {
    let head = &b[..b.len().min(SHOWN_MAX)];
    let mut s: String = head.escape_ascii().to_string();
    if b.len() > head.len() {
        s.push('…');
    }
    format!("\"{s}\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small(v: i64) -> Result<Int, TextError> {
        Ok(Int::Small(v))
    }

    #[test]
    fn python_int_literals() {
        assert_eq!(py_int(b" 12 \n", true, 100), small(12));
        assert_eq!(py_int(b"-0x_1f", true, 100), small(-31));
        assert_eq!(py_int(b"0o17", true, 100), small(15));
        assert_eq!(py_int(b"0B101", true, 100), small(5));
        assert_eq!(py_int(b"1_000", true, 100), small(1000));
        assert_eq!(py_int(b"0_0", true, 100), small(0));
        assert!(py_int(b"010", true, 100).is_err());
        assert_eq!(py_int(b"010", false, 100), small(10));
        assert!(py_int(b"1__0", true, 100).is_err());
        assert!(py_int(b"_1", true, 100).is_err());
        assert!(py_int(b"1_", true, 100).is_err());
        assert!(py_int(b"", true, 100).is_err());
        assert!(py_int(b"0x", true, 100).is_err());
        assert!(py_int(b"12a", false, 100).is_err());
        assert_eq!(
            py_int(b"1\n2a", false, 100).unwrap_err().to_string(),
            "invalid integer literal \"1\\n2a\""
        );
        let long = [b'z'; 50];
        assert_eq!(
            py_int(&long, false, 100).unwrap_err().to_string(),
            format!("invalid integer literal {}", shown(&long))
        );
        assert!(shown(&long).ends_with("z…\""));
        assert_eq!(
            float(b"1.5x").unwrap_err().to_string(),
            "invalid float literal \"1.5x\""
        );
        assert_eq!(py_int(b"-9223372036854775808", false, 100), small(i64::MIN));
        assert_eq!(
            py_int(b"9223372036854775808", false, 100),
            Ok(Int::Big("9223372036854775808".into()))
        );
        assert_eq!(
            py_int(b"-000123456789012345678901234567890", false, 100),
            Ok(Int::Big("-123456789012345678901234567890".into()))
        );
        // 2^128 in hex goes through the bignum.
        assert_eq!(
            py_int(b"0x100000000000000000000000000000000", true, 100),
            Ok(Int::Big("340282366920938463463374607431768211456".into()))
        );
        assert!(
            matches!(py_int(b"0x1000000000000000000000000000", true, 10), Ok(Int::Big(n)) if n.starts_with('('))
        );
    }

    #[test]
    fn c_strtol_is_what_pickle_reads_first() {
        assert_eq!(c_strtol(b"010"), Some(8));
        assert_eq!(c_strtol(b"0x10"), Some(16));
        assert_eq!(c_strtol(b" +1"), Some(1));
        assert_eq!(c_strtol(b"-0"), Some(0));
        assert_eq!(c_strtol(b"08"), None);
        assert_eq!(c_strtol(b"1_0"), None);
        assert_eq!(c_strtol(b"12 "), None);
        assert_eq!(c_strtol(b"0x"), None);
        assert_eq!(c_strtol(b"99999999999999999999"), None);
        assert_eq!(c_strtol(b"-9223372036854775808"), Some(i64::MIN));
    }

    #[test]
    fn long_bytes() {
        assert_eq!(long_le(b"", 100), Int::Small(0));
        assert_eq!(long_le(&[0xff], 100), Int::Small(-1));
        assert_eq!(long_le(&[0x80, 0x00], 100), Int::Small(128));
        assert_eq!(long_le(&[0; 40], 100), Int::Small(0));
        assert_eq!(
            long_le(&[0, 0, 0, 0, 0, 0, 0, 0x80, 0], 100),
            Int::Big("9223372036854775808".into())
        );
        // -2^200 and 2^200 through the bignum.
        let mut neg = vec![0u8; 26];
        neg[25] = 0xff;
        assert_eq!(
            long_le(&neg, 100),
            Int::Big("-1606938044258990275541962092341162602522202993782792835301376".into())
        );
        let mut pos = vec![0u8; 26];
        pos[25] = 0x01;
        assert_eq!(
            long_le(&pos, 100),
            Int::Big("1606938044258990275541962092341162602522202993782792835301376".into())
        );
        assert!(matches!(long_le(&[1u8; 100], 10), Int::Big(n) if n.starts_with('(')));
    }

    #[test]
    fn quoted_strings() {
        assert_eq!(
            quoted_string(b"'a\\x41\\101\\q\\777'"),
            Ok(b"aAA\\q\xff".to_vec())
        );
        assert_eq!(quoted_string(b"\"a'b\""), Ok(b"a'b".to_vec()));
        assert_eq!(quoted_string(b"'\\n\\t\\\\'"), Ok(b"\n\t\\".to_vec()));
        assert!(quoted_string(b"'abc").is_err());
        assert!(quoted_string(b"'").is_err());
        assert!(quoted_string(b"'a\\'").is_err());
        assert!(quoted_string(b"'\\x4'").is_err());
        let msg = |r: Result<Vec<u8>, TextError>| r.unwrap_err().to_string();
        assert_eq!(
            msg(quoted_string(b"'a\\x4'")),
            "invalid \\x escape at position 1"
        );
        assert_eq!(msg(quoted_string(b"'a\\'")), "a trailing \\ in the STRING");
        assert_eq!(
            msg(quoted_string(b"a")),
            "the STRING opcode argument must be quoted"
        );
    }

    #[test]
    fn raw_unicode_escapes() {
        let t = |b: &[u8]| raw_unicode_escape(b).map(|d| d.text);
        assert_eq!(t(b"a\\u0041"), Ok("aA".into()));
        assert_eq!(t(b"\\\\u0041"), Ok("\\\\u0041".into()));
        assert_eq!(t(b"\\\\\\u0041"), Ok("\\\\A".into()));
        assert_eq!(t(b"\\U0001F600\xe9"), Ok("\u{1f600}\u{e9}".into()));
        assert_eq!(t(b"a\\"), Ok("a\\".into()));
        assert_eq!(t(b"\\x"), Ok("\\x".into()));
        assert!(t(b"\\u004").is_err());
        assert!(t(b"\\U00110000").is_err());
        let msg = |b: &[u8]| raw_unicode_escape(b).unwrap_err().to_string();
        assert_eq!(msg(b"ab\\u004"), "truncated \\uXXXX escape at byte 2");
        assert_eq!(
            msg(b"\\\\\\U0041"),
            "truncated \\UXXXXXXXX escape at byte 0"
        );
        assert_eq!(msg(b"\\U00110000"), "\\U00110000 is beyond U+10FFFF");
        let d = raw_unicode_escape(b"\\ud800").unwrap();
        assert!(d.surrogates);
        assert_eq!(d.text, "\u{fffd}");
    }

    #[test]
    fn utf8_with_surrogates() {
        let d = utf8(b"a\xed\xa0\x80\xed\xb0\x80b");
        assert_eq!(d.text, "a\u{fffd}\u{fffd}b");
        assert!(d.surrogates && !d.invalid);
        let d = utf8(b"\xffx\xe9");
        assert_eq!(d.text, "\u{fffd}x\u{fffd}");
        assert!(d.invalid);
        assert_eq!(utf8("é€".as_bytes()).text, "é€");
    }
}
