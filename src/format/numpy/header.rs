//! The `.npy` header as numpy reads it (`numpy/lib/format.py`, `_read_array_header`): a Python
//! literal — a dict of exactly `descr`, `fortran_order` and `shape` — which numpy gives to
//! `ast.literal_eval` (after dropping the `L` of Python 2's long integers, `2L`), then
//! `descr_to_dtype`. It is parsed here by a literal grammar of its own (strings with their
//! escapes, integers, `True`/`False`/`None`, tuples, lists, dicts), with an explicit stack:
//! nothing is evaluated and nothing recurses over the file's nesting beyond
//! [`MAX_LITERAL_DEPTH`].
//!
//! A `descr` is a dtype string (`<f4`, `|O`, Python 2's `|O8`, `<U5`, `|S3`, `<M8[ns]`) or a
//! structured dtype: a list of `(name, descr)` or `(name, descr, shape)` fields, a field's
//! descr itself a string or a list, a name a string or a `(title, name)` pair; unnamed void
//! fields are padding (numpy skips them). Structured dtypes are flattened here into their leaf
//! fields ([`Field`]) with their byte offsets within one element.

pub use crate::format::archive::Field;

/// Deepest nesting of tuples, lists and dicts read in a header (a structured dtype of a
/// structured dtype of … takes two levels per step).
pub const MAX_LITERAL_DEPTH: usize = 32;

/// Most leaf fields of a structured dtype listed.
pub const MAX_FIELDS: usize = 4096;

/// Why a header's Python literal could not be read ([`literal`]). A position (`at`, `start`)
/// is a byte index in the text given to [`literal`], from 0 (the messages call it a
/// character: the same in an ASCII header).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LiteralError {
    /// The text ends at `at`, inside a value.
    EndsInValue {
        /// The text's length.
        at: usize,
    },
    /// Tuples, lists and dicts nested deeper than [`MAX_LITERAL_DEPTH`].
    TooDeep,
    /// No value starts at `at`.
    ExpectedValue {
        /// Where a value was expected.
        at: usize,
    },
    /// A dict key not followed by `:` at `at`.
    ExpectedColon {
        /// Where the `:` was expected.
        at: usize,
    },
    /// A value in a container not followed by `,` or the container's closing bracket.
    ExpectedCommaOrClose {
        /// Where the `,` or bracket was expected.
        at: usize,
    },
    /// A dict closed after a key, before its value.
    KeyWithoutValue,
    /// A string whose closing quote never comes.
    UnclosedString {
        /// Where its opening quote is.
        start: usize,
    },
    /// A `\x`, `\u` or `\U` escape without its hex digits.
    BadEscape {
        /// Where its hex digits should start.
        at: usize,
    },
    /// A `-` not followed by digits.
    ExpectedNumber {
        /// Where the number starts.
        at: usize,
    },
    /// An integer beyond 2^64 (in magnitude).
    NumberTooLarge {
        /// Its digits as written.
        digits: String,
        /// Where the number starts.
        at: usize,
    },
}

impl std::fmt::Display for LiteralError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LiteralError::EndsInValue { at } => {
                write!(f, "the header ends at character {at}, inside a value")
            }
            LiteralError::TooDeep => write!(f, "nested deeper than {MAX_LITERAL_DEPTH} levels"),
            LiteralError::ExpectedValue { at } => write!(f, "expected a value at character {at}"),
            LiteralError::ExpectedColon { at } => write!(f, "expected ':' at character {at}"),
            LiteralError::ExpectedCommaOrClose { at } => {
                write!(f, "expected ',' or a closing bracket at character {at}")
            }
            LiteralError::KeyWithoutValue => write!(f, "a dict key without a value"),
            LiteralError::UnclosedString { start } => {
                write!(f, "a string from character {start} is not closed")
            }
            LiteralError::BadEscape { at } => {
                write!(f, "a bad \\x or \\u escape at character {at}")
            }
            LiteralError::ExpectedNumber { at } => write!(f, "expected a number at character {at}"),
            LiteralError::NumberTooLarge { digits, at } => {
                write!(f, "a number {digits} past 2^64 at character {at}")
            }
        }
    }
}

impl std::error::Error for LiteralError {}

/// Why a shape could not be read ([`dims_of`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShapeError {
    /// The shape is not a tuple of integers (nor one integer, in a field).
    NotInts,
    /// More dimensions than [`super::MAX_NPY_DIMS`].
    TooManyDims,
    /// A dimension below zero.
    Negative(i128),
}

impl std::fmt::Display for ShapeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ShapeError::NotInts => write!(f, "a shape is not a tuple of integers"),
            ShapeError::TooManyDims => write!(f, "more than {} dimensions", super::MAX_NPY_DIMS),
            ShapeError::Negative(n) => write!(f, "a negative dimension {n}"),
        }
    }
}

impl std::error::Error for ShapeError {}

/// Why a structured dtype's list of fields could not be read ([`fields`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DtypeError {
    /// Structured dtypes nested deeper than [`MAX_LITERAL_DEPTH`].
    TooDeep,
    /// A field is not a tuple.
    FieldNotTuple,
    /// A field's tuple is not `(name, descr)` or `(name, descr, shape)`.
    FieldNotTriple,
    /// A field's `(title, name)` pair is not two strings.
    TitleNotStrings,
    /// A field's name is neither a string nor a `(title, name)` pair.
    NameNotString,
    /// A field's subarray has more elements than 64 bits count.
    SubarrayOverflow,
    /// A field's dtype string is one numpy does not read (the string as written).
    UnreadDtype(String),
    /// More leaf fields than [`MAX_FIELDS`].
    TooManyFields,
    /// A field's descr is neither a dtype string nor a list.
    DescrNotStringOrList,
    /// A field's subarray shape is bad.
    Shape(ShapeError),
}

impl From<ShapeError> for DtypeError {
    fn from(e: ShapeError) -> Self {
        DtypeError::Shape(e)
    }
}

impl std::fmt::Display for DtypeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DtypeError::TooDeep => write!(f, "a structured dtype nested too deeply"),
            DtypeError::FieldNotTuple => {
                write!(f, "a field of the structured dtype is not a tuple")
            }
            DtypeError::FieldNotTriple => write!(
                f,
                "a field of the structured dtype is not (name, descr[, shape])"
            ),
            DtypeError::TitleNotStrings => {
                write!(f, "a field's (title, name) pair is not two strings")
            }
            DtypeError::NameNotString => write!(f, "a field's name is not a string"),
            DtypeError::SubarrayOverflow => {
                write!(f, "a field's subarray shape overflows 64 bits")
            }
            DtypeError::UnreadDtype(t) => {
                write!(f, "a field of dtype {t:?}, which numpy does not read")
            }
            DtypeError::TooManyFields => write!(f, "more than {MAX_FIELDS} fields"),
            DtypeError::DescrNotStringOrList => {
                write!(f, "a field's descr is neither a string nor a list")
            }
            DtypeError::Shape(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for DtypeError {}

/// A Python literal value.
#[derive(Debug, Clone, PartialEq)]
pub enum Py {
    /// A string (`'<f4'`, `u'a'`, `b'x'`), its escapes decoded.
    Str(String),
    /// An integer (`3`, `-1`, `2L`).
    Int(i128),
    /// `True` / `False`.
    Bool(bool),
    /// `None`.
    None,
    /// A tuple's items.
    Tuple(Vec<Py>),
    /// A list's items.
    List(Vec<Py>),
    /// A dict's key–value pairs as written.
    Dict(Vec<(Py, Py)>),
}

enum Frame {
    Tuple {
        items: Vec<Py>,
        comma: bool,
    },
    List(Vec<Py>),
    Dict {
        pairs: Vec<(Py, Py)>,
        key: Option<Py>,
    },
}

impl Frame {
    fn closer(&self) -> u8 {
        match self {
            Frame::Tuple { .. } => b')',
            Frame::List(_) => b']',
            Frame::Dict { .. } => b'}',
        }
    }
    fn close(self) -> Result<Py, LiteralError> {
        Ok(match self {
            // `(x)` is x; `(x,)` and `()` are tuples.
            Frame::Tuple { mut items, comma } if items.len() == 1 && !comma => {
                items.pop().unwrap_or(Py::None)
            }
            Frame::Tuple { items, .. } => Py::Tuple(items),
            Frame::List(items) => Py::List(items),
            Frame::Dict { key: Some(_), .. } => return Err(LiteralError::KeyWithoutValue),
            Frame::Dict { pairs, .. } => Py::Dict(pairs),
        })
    }
}

/// Reads one Python literal at the start of `s` (leading whitespace allowed): the value and the
/// index one past it; `allow_long`: integers may end in Python 2's `L`. Errors say what was
/// expected and at which character.
pub fn literal(s: &[u8], allow_long: bool) -> Result<(Py, usize), LiteralError> {
    let mut i = 0usize;
    let mut stack: Vec<Frame> = Vec::new();
    // Whether a closer may come now (after an opener or a comma, not after a colon).
    let mut may_close = false;
    let ws = |i: &mut usize| {
        while s.get(*i).is_some_and(|c| c.is_ascii_whitespace()) {
            *i += 1;
        }
    };
    loop {
        ws(&mut i);
        let Some(&c) = s.get(i) else {
            return Err(LiteralError::EndsInValue { at: i });
        };
        let mut v = match c {
            b'(' | b'[' | b'{' => {
                if stack.len() == MAX_LITERAL_DEPTH {
                    return Err(LiteralError::TooDeep);
                }
                stack.push(match c {
                    b'(' => Frame::Tuple {
                        items: Vec::new(),
                        comma: false,
                    },
                    b'[' => Frame::List(Vec::new()),
                    _ => Frame::Dict {
                        pairs: Vec::new(),
                        key: None,
                    },
                });
                i += 1;
                may_close = true;
                continue;
            }
            b')' | b']' | b'}' if may_close && stack.last().is_some_and(|f| f.closer() == c) => {
                i += 1;
                stack.pop().map_or(Ok(Py::None), Frame::close)?
            }
            b'\'' | b'"' => string(s, &mut i)?,
            b'u' | b'U' | b'b' | b'B' if matches!(s.get(i + 1), Some(b'\'' | b'"')) => {
                i += 1;
                string(s, &mut i)?
            }
            b'-' | b'0'..=b'9' => int(s, &mut i, allow_long)?,
            _ => {
                let rest = &s[i..];
                let word = [("True", Py::Bool(true)), ("False", Py::Bool(false))]
                    .into_iter()
                    .chain([("None", Py::None)])
                    .find(|(w, _)| rest.starts_with(w.as_bytes()));
                match word {
                    Some((w, v)) => {
                        i += w.len();
                        v
                    }
                    None => return Err(LiteralError::ExpectedValue { at: i }),
                }
            }
        };
        // Attach the value to the containers, closing those that end here.
        loop {
            let Some(top) = stack.last_mut() else {
                return Ok((v, i));
            };
            ws(&mut i);
            match top {
                Frame::Dict { key: k @ None, .. } => {
                    if s.get(i) != Some(&b':') {
                        return Err(LiteralError::ExpectedColon { at: i });
                    }
                    i += 1;
                    *k = Some(v);
                    may_close = false;
                    break;
                }
                Frame::Dict { pairs, key } => {
                    let k = key.take().unwrap_or(Py::None);
                    pairs.push((k, v));
                }
                Frame::Tuple { items, .. } | Frame::List(items) => items.push(v),
            }
            match s.get(i) {
                Some(b',') => {
                    i += 1;
                    if let Some(Frame::Tuple { comma, .. }) = stack.last_mut() {
                        *comma = true;
                    }
                    may_close = true;
                    break;
                }
                Some(&c) if stack.last().is_some_and(|f| f.closer() == c) => {
                    i += 1;
                    v = stack.pop().map_or(Ok(Py::None), Frame::close)?;
                }
                _ => return Err(LiteralError::ExpectedCommaOrClose { at: i }),
            }
        }
    }
}

/// A quoted string at `s[*i]` (the quote), its escapes decoded as Python decodes them.
fn string(s: &[u8], i: &mut usize) -> Result<Py, LiteralError> {
    let q = s[*i];
    let start = *i;
    *i += 1;
    let mut out: Vec<u8> = Vec::new();
    loop {
        let Some(&c) = s.get(*i) else {
            return Err(LiteralError::UnclosedString { start });
        };
        *i += 1;
        if c == q {
            return Ok(Py::Str(String::from_utf8_lossy(&out).into_owned()));
        }
        if c != b'\\' {
            out.push(c);
            continue;
        }
        let Some(&e) = s.get(*i) else {
            return Err(LiteralError::UnclosedString { start });
        };
        *i += 1;
        let hex = |i: &mut usize, n: usize| -> Result<u32, LiteralError> {
            let h = s
                .get(*i..*i + n)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u32::from_str_radix(h, 16).ok())
                .ok_or(LiteralError::BadEscape { at: *i })?;
            *i += n;
            Ok(h)
        };
        let ch = match e {
            b'\\' | b'\'' | b'"' => char::from(e),
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'0' => '\0',
            b'\n' => continue,
            b'x' => char::from_u32(hex(i, 2)?).unwrap_or('\u{fffd}'),
            b'u' => char::from_u32(hex(i, 4)?).unwrap_or('\u{fffd}'),
            b'U' => char::from_u32(hex(i, 8)?).unwrap_or('\u{fffd}'),
            // Python keeps an unknown escape as written.
            other => {
                out.extend([b'\\', other]);
                continue;
            }
        };
        let mut buf = [0u8; 4];
        out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
    }
}

/// An integer at `s[*i]` (an optional `-`, digits, and when `allow_long` Python 2's `L`).
fn int(s: &[u8], i: &mut usize, allow_long: bool) -> Result<Py, LiteralError> {
    let start = *i;
    let neg = s[*i] == b'-';
    if neg {
        *i += 1;
    }
    let digits = *i;
    while s.get(*i).is_some_and(u8::is_ascii_digit) {
        *i += 1;
    }
    let t = std::str::from_utf8(&s[digits..*i]).unwrap_or("");
    if t.is_empty() {
        return Err(LiteralError::ExpectedNumber { at: start });
    }
    let v = t
        .parse::<i128>()
        .ok()
        .filter(|v| *v <= i128::from(u64::MAX))
        .ok_or_else(|| LiteralError::NumberTooLarge {
            digits: t.to_string(),
            at: start,
        })?;
    if allow_long && matches!(s.get(*i), Some(b'L' | b'l')) {
        *i += 1;
    }
    Ok(Py::Int(if neg { -v } else { v }))
}

/// Byte size of one element of a dtype string: `<f4` 4, `<U5` 20 (UTF-32), `|S3` 3, `<M8[ns]`
/// 8; `None` for an object (`|O`, `|O8`: a pointer, not stored) or a string numpy would not
/// read.
pub fn item_size(descr: &str) -> Option<u64> {
    let code = descr.trim_start_matches(['<', '>', '|', '=']);
    let code = code.split('[').next().unwrap_or(code);
    let kind = code.chars().next()?;
    let n = code.get(kind.len_utf8()..)?;
    let n = if n.is_empty() && kind == '?' {
        1
    } else {
        n.parse::<u64>().ok()?
    };
    match kind {
        'b' | 'i' | 'u' | 'f' | 'c' | 'S' | 'a' | 'V' | 'M' | 'm' | '?' => Some(n),
        'U' => n.checked_mul(4),
        _ => None,
    }
}

/// Whether a dtype string is Python objects (`|O`, `|O8`): np.save pickles such arrays.
pub fn is_object(descr: &str) -> bool {
    descr
        .trim_start_matches(['<', '>', '|', '='])
        .starts_with('O')
}

/// A structured dtype's leaf fields, flattened, and its item size (`None` when a field's size
/// is not known: an object field, a bad type). `descr` is the list as read.
pub fn fields(descr: &[Py]) -> Result<(Vec<Field>, Option<u64>), DtypeError> {
    let mut out = Vec::new();
    let size = fields_into(descr, "", 0, 0, &mut out)?;
    Ok((out, size))
}

/// Adds the leaf fields of `descr` (a structured dtype's list) at element offset `base`, named
/// under `prefix`; returns the list's item size. Its depth is bounded by the literal's
/// ([`MAX_LITERAL_DEPTH`]).
fn fields_into(
    descr: &[Py],
    prefix: &str,
    base: u64,
    depth: usize,
    out: &mut Vec<Field>,
) -> Result<Option<u64>, DtypeError> {
    if depth > MAX_LITERAL_DEPTH {
        return Err(DtypeError::TooDeep);
    }
    let mut offset = Some(0u64);
    for f in descr {
        let Py::Tuple(parts) = f else {
            return Err(DtypeError::FieldNotTuple);
        };
        let (name, ty, shape) = match parts.as_slice() {
            [n, t] => (n, t, Vec::new()),
            [n, t, s] => (n, t, dims_of(s)?),
            _ => return Err(DtypeError::FieldNotTriple),
        };
        let name = match name {
            Py::Str(n) => n.clone(),
            Py::Tuple(t) => match t.as_slice() {
                [_, Py::Str(n)] => n.clone(),
                _ => return Err(DtypeError::TitleNotStrings),
            },
            _ => return Err(DtypeError::NameNotString),
        };
        let count = super::element_count(&shape).ok_or(DtypeError::SubarrayOverflow)?;
        let at = offset.and_then(|o| o.checked_add(base));
        let full = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}.{name}")
        };
        let one = match ty {
            Py::Str(t) => {
                let size = item_size(t);
                // Unnamed void fields are padding: numpy skips them.
                let pad =
                    name.is_empty() && t.trim_start_matches(['<', '>', '|', '=']).starts_with('V');
                if !pad && item_size(t).is_none() && !is_object(t) {
                    return Err(DtypeError::UnreadDtype(t.clone()));
                }
                if !pad {
                    if out.len() == MAX_FIELDS {
                        return Err(DtypeError::TooManyFields);
                    }
                    out.push(Field {
                        name: full,
                        descr: t.clone(),
                        shape,
                        offset: at.unwrap_or(u64::MAX),
                    });
                }
                size
            }
            Py::List(inner) => {
                // A nested structured dtype (a subarray of one repeats its fields: listed once).
                fields_into(inner, &full, at.unwrap_or(u64::MAX), depth + 1, out)?
            }
            _ => return Err(DtypeError::DescrNotStringOrList),
        };
        offset = offset
            .zip(one.and_then(|s| s.checked_mul(count)))
            .and_then(|(o, s)| o.checked_add(s));
    }
    Ok(offset)
}

/// A shape tuple's dimensions (an int alone is a 1-D shape, as numpy takes it in a field).
pub fn dims_of(v: &Py) -> Result<Vec<u64>, ShapeError> {
    let items = match v {
        Py::Tuple(items) => items.as_slice(),
        Py::Int(_) => std::slice::from_ref(v),
        _ => return Err(ShapeError::NotInts),
    };
    if items.len() > super::MAX_NPY_DIMS {
        return Err(ShapeError::TooManyDims);
    }
    items
        .iter()
        .map(|d| match d {
            Py::Int(n) => u64::try_from(*n).map_err(|_| ShapeError::Negative(*n)),
            _ => Err(ShapeError::NotInts),
        })
        .collect()
}

/// The literal as Python's `repr` writes it (for a structured descr in the metadata).
pub fn repr(v: &Py) -> String {
    let mut out = String::new();
    repr_into(v, &mut out, 0);
    out
}

fn repr_into(v: &Py, out: &mut String, depth: usize) {
    if depth > MAX_LITERAL_DEPTH {
        out.push('…');
        return;
    }
    let list = |items: &[Py], out: &mut String| {
        for (k, x) in items.iter().enumerate() {
            if k > 0 {
                out.push_str(", ");
            }
            repr_into(x, out, depth + 1);
        }
    };
    match v {
        Py::Str(s) => out.push_str(&format!(
            "'{}'",
            s.replace('\\', "\\\\").replace('\'', "\\'")
        )),
        Py::Int(n) => out.push_str(&n.to_string()),
        Py::Bool(b) => out.push_str(if *b { "True" } else { "False" }),
        Py::None => out.push_str("None"),
        Py::Tuple(items) => {
            out.push('(');
            list(items, out);
            if items.len() == 1 {
                out.push(',');
            }
            out.push(')');
        }
        Py::List(items) => {
            out.push('[');
            list(items, out);
            out.push(']');
        }
        Py::Dict(pairs) => {
            out.push('{');
            for (k, (a, b)) in pairs.iter().enumerate() {
                if k > 0 {
                    out.push_str(", ");
                }
                repr_into(a, out, depth + 1);
                out.push_str(": ");
                repr_into(b, out, depth + 1);
            }
            out.push('}');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_as_python_reads_them() {
        let text = b" {'a': (2L, 3,), \"b\": [u'x\\'y', -1], 'c': (5), 'd': ()} rest";
        let (v, end) = literal(text, true).unwrap();
        assert_eq!(&text[end..], b" rest");
        assert_eq!(
            v,
            Py::Dict(vec![
                (Py::Str("a".into()), Py::Tuple(vec![Py::Int(2), Py::Int(3)])),
                (
                    Py::Str("b".into()),
                    Py::List(vec![Py::Str("x'y".into()), Py::Int(-1)])
                ),
                (Py::Str("c".into()), Py::Int(5)),
                (Py::Str("d".into()), Py::Tuple(vec![])),
            ])
        );
        for bad in [
            "{'a' 1}", "(1,,)", "[1", "{'a': }", "'abc", "(1]", "{,}", "",
        ] {
            assert!(literal(bad.as_bytes(), true).is_err(), "{bad}");
        }
        assert!(literal(b"(2L,)", false).is_err());
        let deep = "[".repeat(MAX_LITERAL_DEPTH + 1);
        assert_eq!(
            literal(deep.as_bytes(), true).unwrap_err().to_string(),
            format!("nested deeper than {MAX_LITERAL_DEPTH} levels")
        );
    }

    #[test]
    fn errors_say_what_and_where() {
        let msg = |s: &str| literal(s.as_bytes(), false).unwrap_err().to_string();
        assert_eq!(msg("{'a' 1}"), "expected ':' at character 5");
        assert_eq!(msg("(1,,)"), "expected a value at character 3");
        assert_eq!(
            msg("[1"),
            "expected ',' or a closing bracket at character 2"
        );
        assert_eq!(msg("'abc"), "a string from character 0 is not closed");
        assert_eq!(msg(" "), "the header ends at character 1, inside a value");
        assert_eq!(msg("'\\x4'"), "a bad \\x or \\u escape at character 3");
        assert_eq!(msg("-"), "expected a number at character 0");
        assert_eq!(
            msg("(1, 99999999999999999999999)"),
            "a number 99999999999999999999999 past 2^64 at character 4"
        );
        let (v, _) = literal(b"[('a', 'x4')]", true).unwrap();
        let Py::List(l) = v else { panic!() };
        assert_eq!(
            fields(&l).unwrap_err().to_string(),
            "a field of dtype \"x4\", which numpy does not read"
        );
        let (v, _) = literal(b"[('a', '<f4', (2, -3))]", true).unwrap();
        let Py::List(l) = v else { panic!() };
        assert_eq!(
            fields(&l).unwrap_err().to_string(),
            "a negative dimension -3"
        );
        assert_eq!(
            dims_of(&Py::Str("x".into())).unwrap_err().to_string(),
            "a shape is not a tuple of integers"
        );
    }

    #[test]
    fn item_sizes_and_fields() {
        assert_eq!(item_size("<U5"), Some(20));
        assert_eq!(item_size("|S3"), Some(3));
        assert_eq!(item_size("<M8[ns]"), Some(8));
        assert_eq!(item_size("|O"), None);
        assert!(is_object("|O8"));
        let (v, _) = literal(
            b"[('a', '<f4'), ('', '|V4'), (('t', 'b'), [('x', '<i2', (3,))]), ('c', '|u1')]",
            true,
        )
        .unwrap();
        let Py::List(l) = v else { panic!() };
        let (f, size) = fields(&l).unwrap();
        let names: Vec<_> = f.iter().map(|f| (f.name.as_str(), f.offset)).collect();
        assert_eq!(names, [("a", 0), ("b.x", 8), ("c", 14)]);
        assert_eq!(size, Some(15));
    }
}
