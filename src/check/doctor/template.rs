//! Chat template safety: a static look at the Jinja source of `tokenizer.chat_template*`, never
//! rendering it. A chat template is rendered by Python's Jinja2 in many tools, and a template
//! that reaches Python's internals (`''.__class__.__mro__[1].__subclasses__()`, `cycler.__init__
//! .__globals__.os.popen(...)`) runs code on the machine of whoever renders it.
//!
//! The source is split into Jinja code (`{{ … }}`, `{% … %}`) and output text; comments
//! (`{# … #}`) are skipped. The code is lexed into names, string literals (escapes decoded),
//! numbers and operators, and:
//!
//! - `template-unsafe` (error): a name or attribute that is a Python internal (`__class__`,
//!   `__globals__`, `__subclasses__`, `__builtins__`, `__import__`, any `__dunder__`, an attribute
//!   starting with `_`) or a module or call that runs commands (`os`, `subprocess`, `popen`,
//!   `eval`, `exec`, ...), written out, or as a string used as a subscript or `|attr` argument.
//! - `template-obfuscated` (error): such a name built from pieces: string literals joined with
//!   `+` or `~`, repeated with `*`, a list `|join`ed, a string `|reverse`d, escapes
//!   (`'\x5f\x5f'`), or variables `{% set %}` to such pieces; fragments of a dunder name.
//! - `template-dynamic-attr` (warning): `|attr(…)` with an argument that is not a constant, which
//!   no static look can follow.
//!
//! Output text is never judged (a system prompt may well mention `os`).

use std::collections::HashMap;

use super::{about_key, Finding, Severity};
use crate::format::Model;
use crate::text::escape;

/// At most this many code tokens are looked at per template: a hostile 100 MB template gives
/// its findings for the first part and says it stopped.
pub const MAX_TOKENS: usize = 1 << 20;

/// Deepest nesting of brackets followed when folding a constant (`((('a')))`): a hostile
/// template of a million `(` must not exhaust the stack.
const MAX_DEPTH: usize = 32;

/// Longest constant built while folding (`'a' * 64 * 64 * 64 …` must not grow without end);
/// Python's internal names are far shorter.
const MAX_CONST: usize = 4096;

/// Most names one finding collects (it shows [`super::EXAMPLES`] of them).
const MAX_NAMES: usize = 64;

/// Most distinct markers taken from one template.
pub const MAX_MARKERS: usize = 1024;

/// Names (identifiers, attributes, subscripts) that reach Python internals or run commands.
const DANGER: &[&str] = &[
    "os",
    "subprocess",
    "popen",
    "system",
    "eval",
    "exec",
    "execfile",
    "compile",
    "importlib",
    "builtins",
    "globals",
    "locals",
    "getattr",
    "setattr",
    "mro",
    "func_globals",
    "f_globals",
    "f_locals",
    "f_back",
    "gi_frame",
    "cr_frame",
    "tb_frame",
    "co_code",
    "open",
    "spawn",
    "check_output",
    "getoutput",
    "pty",
];

/// Of [`DANGER`], the ones that are also ordinary words a template may use (a variable, a
/// namespace field, a role: `messages[0]['system']`); they count only when called as a method
/// (`x.system(…)`), or built from pieces.
const ORDINARY: &[&str] = &["system", "open", "compile", "locals", "globals", "spawn"];

/// A Python dunder name: `__x__`.
fn dunder(s: &str) -> bool {
    s.len() > 4 && s.starts_with("__") && s.ends_with("__")
}

/// Whether built text holds a dangerous name anywhere, or a piece of a dunder name.
fn dangerous_inside(s: &str) -> Option<String> {
    if dunder(s) || (DANGER.contains(&s) && !ORDINARY.contains(&s)) {
        return Some(s.to_string());
    }
    for w in s.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
        if dunder(w) || (w.len() > 2 && DANGER.contains(&w) && !ORDINARY.contains(&w)) {
            return Some(w.to_string());
        }
        if w.len() > 2
            && (w.starts_with("__") || w.ends_with("__"))
            && w.chars().any(|c| c.is_ascii_alphabetic())
        {
            return Some(w.to_string());
        }
    }
    None
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Name(String),
    /// A string literal's value, and whether escapes were decoded in it.
    Str(String, bool),
    Num(u64),
    Op(char),
}

/// The parts of a template: output text and code, in order.
enum Part<'a> {
    Text(&'a str),
    Code(&'a str),
}

fn split(src: &str) -> Vec<Part<'_>> {
    let mut out = Vec::new();
    let mut rest = src;
    while let Some(i) = rest.find(['{']) {
        let after = &rest[i + 1..];
        let close = match after.as_bytes().first() {
            Some(b'{') => "}}",
            Some(b'%') => "%}",
            Some(b'#') => "#}",
            _ => {
                out.push(Part::Text(&rest[..i + 1]));
                rest = after;
                continue;
            }
        };
        out.push(Part::Text(&rest[..i]));
        let body = &after[1..];
        let end = body.find(close).unwrap_or(body.len());
        if close != "#}" {
            out.push(Part::Code(&body[..end]));
        }
        rest = body.get(end + close.len()..).unwrap_or("");
    }
    out.push(Part::Text(rest));
    out
}

/// Decodes a string literal's body (Python's escapes, as Jinja reads them); `true` when an
/// escape was decoded.
fn unescape(body: &str) -> (String, bool) {
    let mut out = String::new();
    let mut escaped = false;
    let mut it = body.chars().peekable();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        escaped = true;
        let hex = |it: &mut std::iter::Peekable<std::str::Chars<'_>>, n: usize| {
            let s: String = (0..n).filter_map(|_| it.next()).collect();
            u32::from_str_radix(&s, 16).ok().and_then(char::from_u32)
        };
        match it.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('x') => out.extend(hex(&mut it, 2)),
            Some('u') => out.extend(hex(&mut it, 4)),
            Some('U') => out.extend(hex(&mut it, 8)),
            Some(d @ '0'..='7') => {
                let mut v = d.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match it.peek().and_then(|c| c.to_digit(8)) {
                        Some(x) => {
                            v = v * 8 + x;
                            it.next();
                        }
                        None => break,
                    }
                }
                out.extend(char::from_u32(v));
            }
            Some(o) => out.push(o),
            None => {}
        }
    }
    (out, escaped)
}

fn lex(code: &str, out: &mut Vec<Tok>) {
    let mut it = code.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        if out.len() >= MAX_TOKENS {
            return;
        }
        if c.is_whitespace() {
            continue;
        }
        if c == '\'' || c == '"' {
            let mut end = code.len();
            let mut prev_backslash = false;
            for (j, d) in it.by_ref() {
                if d == c && !prev_backslash {
                    end = j;
                    break;
                }
                prev_backslash = d == '\\' && !prev_backslash;
            }
            let (s, e) = unescape(&code[i + 1..end.max(i + 1)]);
            out.push(Tok::Str(s, e));
        } else if c.is_alphabetic() || c == '_' {
            let mut end = i + c.len_utf8();
            while let Some(&(j, d)) = it.peek() {
                if d.is_alphanumeric() || d == '_' {
                    end = j + d.len_utf8();
                    it.next();
                } else {
                    break;
                }
            }
            out.push(Tok::Name(code[i..end].to_string()));
        } else if c.is_ascii_digit() {
            let mut v = u64::from(c.to_digit(10).unwrap_or(0));
            while let Some(&(_, d)) = it.peek() {
                match d.to_digit(10) {
                    Some(x) => {
                        v = v.saturating_mul(10).saturating_add(u64::from(x));
                        it.next();
                    }
                    None => break,
                }
            }
            out.push(Tok::Num(v));
        } else {
            out.push(Tok::Op(c));
        }
    }
}

/// What one template gives.
#[derive(Default)]
struct Scan {
    unsafe_names: Vec<String>,
    obfuscated: Vec<String>,
    dynamic_attr: bool,
}

impl Scan {
    fn add(list: &mut Vec<String>, s: String) {
        if list.len() < MAX_NAMES && !list.contains(&s) {
            list.push(s);
        }
    }
}

/// A constant string expression starting at `toks[i]`: its value, whether it was built
/// (more than one plain literal), and the index after it.
/// A constant string expression starting at `toks[i]` (see [`constant_at`]).
fn constant(
    toks: &[Tok],
    i: usize,
    vars: &HashMap<String, String>,
) -> Option<(String, bool, usize)> {
    constant_at(toks, i, vars, 0)
}

fn constant_at(
    toks: &[Tok],
    i: usize,
    vars: &HashMap<String, String>,
    depth: usize,
) -> Option<(String, bool, usize)> {
    if depth > MAX_DEPTH {
        return None;
    }
    let (mut val, mut built, mut j) = match toks.get(i)? {
        Tok::Str(s, e) => (s.clone(), *e, i + 1),
        Tok::Name(n) if vars.contains_key(n) => (vars[n].clone(), true, i + 1),
        Tok::Op('[') => {
            // A list of constants: ['a', 'b'] (joined only by a later |join).
            let mut items = Vec::new();
            let mut j = i + 1;
            loop {
                let (v, _, k) = constant_at(toks, j, vars, depth + 1)?;
                items.push(v);
                match toks.get(k)? {
                    Tok::Op(',') => j = k + 1,
                    Tok::Op(']') => {
                        j = k + 1;
                        break;
                    }
                    _ => return None,
                }
            }
            // Only a list that is joined is a string.
            if toks.get(j) != Some(&Tok::Op('|'))
                || toks.get(j + 1) != Some(&Tok::Name("join".into()))
            {
                return None;
            }
            (items.join("\u{0}"), true, j)
        }
        Tok::Op('(') => {
            let (v, b, k) = constant_at(toks, i + 1, vars, depth + 1)?;
            if toks.get(k) != Some(&Tok::Op(')')) {
                return None;
            }
            (v, b, k + 1)
        }
        _ => return None,
    };
    loop {
        if val.len() > MAX_CONST {
            val = val.chars().take(MAX_CONST).collect();
            break;
        }
        match (toks.get(j), toks.get(j + 1)) {
            (Some(Tok::Op('+' | '~')), _) => match constant_at(toks, j + 1, vars, depth + 1) {
                Some((v, _, k)) => {
                    val.push_str(&v);
                    built = true;
                    j = k;
                }
                None => break,
            },
            (Some(Tok::Op('*')), Some(Tok::Num(n))) => {
                let times = usize::try_from(*n).unwrap_or(usize::MAX);
                let room = MAX_CONST / val.len().max(1);
                val = val.repeat(times.min(room).max(1));
                built = true;
                j += 2;
            }
            (Some(Tok::Op('|')), Some(Tok::Name(f))) => {
                let f = f.as_str();
                let mut k = j + 2;
                let arg = if toks.get(k) == Some(&Tok::Op('(')) {
                    let a = constant_at(toks, k + 1, vars, depth + 1);
                    let close = a.as_ref().map_or(k + 1, |a| a.2);
                    k = close + 1;
                    a.map(|a| a.0)
                } else {
                    None
                };
                match f {
                    "join" => {
                        val = val.replace('\u{0}', &arg.unwrap_or_default());
                    }
                    "reverse" => val = val.chars().rev().collect(),
                    "lower" => val = val.to_lowercase(),
                    "upper" => val = val.to_uppercase(),
                    "string" | "trim" => {}
                    _ => break,
                }
                built = true;
                j = k;
            }
            _ => break,
        }
    }
    Some((val.replace('\u{0}', ""), built, j))
}

fn name_at(toks: &[Tok], i: usize) -> Option<&str> {
    match toks.get(i) {
        Some(Tok::Name(n)) => Some(n.as_str()),
        _ => None,
    }
}

/// Judges a constant string: built from pieces and holding a dangerous name, it is
/// obfuscation; written out, a dunder name (or any dangerous name used as a subscript) is
/// unsafe; a plain word such as `'os'` elsewhere is only data.
fn judge(v: &str, built: bool, subscript: bool, scan: &mut Scan) {
    let Some(d) = dangerous_inside(v) else { return };
    if built {
        Scan::add(&mut scan.obfuscated, d);
    } else if dunder(&d) || (subscript && !ORDINARY.contains(&d.as_str())) {
        Scan::add(&mut scan.unsafe_names, d);
    }
}

fn scan_code(toks: &[Tok], scan: &mut Scan) {
    let mut vars: HashMap<String, String> = HashMap::new();
    let mut i = 0;
    while i < toks.len() {
        let prev = i.checked_sub(1).and_then(|p| toks.get(p));
        match &toks[i] {
            Tok::Name(n) if vars.contains_key(n) && prev != Some(&Tok::Op('.')) => {
                let (v, built, next) = constant(toks, i, &vars).unwrap_or_default();
                judge(&v, built, prev == Some(&Tok::Op('[')), scan);
                i = next.max(i + 1);
            }
            Tok::Name(n) => {
                let attribute = prev == Some(&Tok::Op('.'));
                if dunder(n)
                    || n == "__import__"
                    || (attribute && n.starts_with('_'))
                    || (DANGER.contains(&n.as_str())
                        && (!ORDINARY.contains(&n.as_str())
                            || (attribute && toks.get(i + 1) == Some(&Tok::Op('(')))))
                {
                    Scan::add(&mut scan.unsafe_names, n.clone());
                }
                // {% set x = <constant> %}: remember pieces a later expression may join.
                if n == "set" && toks.get(i + 2) == Some(&Tok::Op('=')) {
                    if let (Some(var), Some((v, _, _))) =
                        (name_at(toks, i + 1), constant(toks, i + 3, &vars))
                    {
                        vars.insert(var.to_string(), v);
                    }
                    // The value is judged from its first token, as written.
                    i += 3;
                    continue;
                }
                // |attr(x): a constant argument is judged like any name; anything else cannot be.
                if n == "attr"
                    && prev == Some(&Tok::Op('|'))
                    && toks.get(i + 1) == Some(&Tok::Op('('))
                {
                    match constant(toks, i + 2, &vars) {
                        Some((v, built, _)) => {
                            if let Some(d) = dangerous_inside(&v) {
                                let list = if built {
                                    &mut scan.obfuscated
                                } else {
                                    &mut scan.unsafe_names
                                };
                                Scan::add(list, d);
                            }
                        }
                        None => scan.dynamic_attr = true,
                    }
                }
                i += 1;
            }
            Tok::Str(..) | Tok::Op('[' | '(') => {
                let Some((v, built, next)) = constant(toks, i, &vars) else {
                    i += 1;
                    continue;
                };
                judge(&v, built, prev == Some(&Tok::Op('[')), scan);
                i = next.max(i + 1);
            }
            _ => i += 1,
        }
    }
}

/// The special-looking markers a template emits (in its output text and its string
/// literals), in first-seen order without repeats: `<|im_end|>`, `<end_of_turn>`, `[INST]`, ...
pub fn markers(src: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
    let mut push = |s: &str| {
        for m in markers_in(s) {
            if out.len() < MAX_MARKERS && seen.insert(m.clone()) {
                out.push(m);
            }
        }
    };
    for part in split(src) {
        match part {
            Part::Text(t) => push(t),
            Part::Code(c) => {
                let mut toks = Vec::new();
                lex(c, &mut toks);
                for t in toks {
                    if let Tok::Str(s, _) = t {
                        push(&s);
                    }
                }
            }
        }
    }
    out
}

/// Longest marker looked for (bytes).
const MAX_MARKER: usize = 64;

fn markers_in(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, c) in s.char_indices() {
        let close = match c {
            '<' => '>',
            '[' => ']',
            _ => continue,
        };
        let rest = &s[i..];
        let Some(end) = rest
            .char_indices()
            .skip(1)
            .take(MAX_MARKER)
            .find(|&(_, d)| d == close || d == c || d.is_whitespace())
            .filter(|&(_, d)| d == close)
            .map(|(j, _)| j)
        else {
            continue;
        };
        if end >= MAX_MARKER {
            continue;
        }
        let cand = &rest[..=end];
        if super::special::looks_special(cand) || super::special::EOG_TEXTS.contains(&cand) {
            out.push(cand.to_string());
        }
    }
    out
}

/// The safety findings of every chat template of `m`.
pub fn findings(m: &Model, out: &mut Vec<Finding>) {
    for e in &m.metadata {
        if e.key != "tokenizer.chat_template" && !e.key.starts_with("tokenizer.chat_template.") {
            continue;
        }
        let Some(src) = e.value.as_str() else {
            continue;
        };
        let scan = scan(src);
        let names = |l: &[String]| {
            l.iter()
                .map(|n| format!("\"{}\"", escape(n)))
                .collect::<Vec<_>>()
        };
        if !scan.unsafe_names.is_empty() {
            out.push(about_key(
                m,
                Severity::Error,
                "template-unsafe",
                &e.key,
                format!(
                    "\"{}\" reaches Python internals or runs commands: {}; rendering it with Jinja2 outside a sandbox can run code (it was not rendered here)",
                    escape(&e.key),
                    super::examples(&names(&scan.unsafe_names))
                ),
            ));
        }
        if !scan.obfuscated.is_empty() {
            out.push(about_key(
                m,
                Severity::Error,
                "template-obfuscated",
                &e.key,
                format!(
                    "\"{}\" builds the names {} from pieces (joined, repeated, reversed or escaped strings): a disguised reach into Python internals",
                    escape(&e.key),
                    super::examples(&names(&scan.obfuscated))
                ),
            ));
        }
        if scan.dynamic_attr {
            out.push(about_key(
                m,
                Severity::Warning,
                "template-dynamic-attr",
                &e.key,
                format!(
                    "\"{}\" uses |attr() with a name computed while rendering; a static look cannot tell which attribute it reaches",
                    escape(&e.key)
                ),
            ));
        }
    }
}

fn scan(src: &str) -> Scan {
    let mut scan = Scan::default();
    // One token stream for the whole template, so `{% set %}` pieces reach later blocks;
    // an `Op('\0')` between blocks keeps expressions from running across them.
    let mut toks = Vec::new();
    for part in split(src) {
        if let Part::Code(c) = part {
            lex(c, &mut toks);
            toks.push(Tok::Op('\0'));
        }
    }
    scan_code(&toks, &mut scan);
    scan
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(src: &str) -> (Vec<String>, Vec<String>, bool) {
        let s = scan(src);
        (s.unsafe_names, s.obfuscated, s.dynamic_attr)
    }

    #[test]
    fn direct_access_is_unsafe() {
        let (u, o, _) = names("{{ ''.__class__.__mro__[1].__subclasses__() }}");
        assert_eq!(u, ["__class__", "__mro__", "__subclasses__"]);
        assert!(o.is_empty());
        let (u, _, _) = names("{{ cycler.__init__.__globals__.os.popen('id').read() }}");
        assert_eq!(u, ["__init__", "__globals__", "os", "popen"]);
        let (u, _, _) = names("{{ x['__globals__'] }}");
        assert_eq!(u, ["__globals__"]);
        let (u, _, _) = names("{{ self._TemplateReference__context }}");
        assert_eq!(u, ["_TemplateReference__context"]);
    }

    #[test]
    fn built_names_are_obfuscated() {
        for src in [
            "{{ x|attr('__cla' + 'ss__') }}",
            "{{ x|attr('__cla' ~ 'ss__') }}",
            "{{ x|attr('_'*2 ~ 'class' ~ '_'*2) }}",
            "{{ x|attr(['__cl', 'ass__']|join) }}",
            "{{ x|attr('__ssalc__'|reverse) }}",
            "{% set a = '__cla' %}{% set b = 'ss__' %}{{ x|attr(a ~ b) }}",
            "{{ x|attr('\\x5f\\x5fclass\\x5f\\x5f') }}",
        ] {
            let (u, o, _) = names(src);
            assert!(!o.is_empty(), "{src}: unsafe {u:?}, obfuscated {o:?}");
            assert!(
                o.iter().all(|n| dunder(n)),
                "{src}: only whole names: {o:?}"
            );
        }
        let (_, _, dynamic) = names("{{ x|attr(y) }}");
        assert!(dynamic);
    }

    #[test]
    fn ordinary_templates_are_clean() {
        for src in [
            "{{ bos_token }}{% for message in messages %}{{'<|user|>' + '\n' + message['content'] + '<|end|>'}}{% endfor %}",
            "{% set system = messages[0]['content'] %}{{ '<|im_start|>system\n' + system }}",
            "{% set role = 'system' %}{{ role }}{{ roles['system'] }}{{ tool.open }}{{ x.system }}",
            "{% set ns = namespace(found=false) %}{% for m in messages|reverse %}{{ m.content|trim }}{% endfor %}",
            "You may use the os module.{{ messages|length }}",
            "{{ 'a' < 'b' }}{{ raise_exception('Conversation roles must alternate') }}",
        ] {
            assert_eq!(names(src), (vec![], vec![], false), "{src}");
        }
    }

    #[test]
    fn hostile_templates_stay_bounded() {
        let deep = format!(
            "{{{{ x|attr({}'__cla' ~ 'ss__'{}) }}}}",
            "(".repeat(100_000),
            ")".repeat(100_000)
        );
        let _ = names(&deep);
        let (_, o, _) = names("{{ x|attr('_' * 64 * 64 * 64 * 64 * 64 ~ 'class') }}");
        assert!(o.len() <= 1);
        let many: String = (0..5000).map(|i| format!("<|m{i}|>")).collect();
        assert_eq!(markers(&many).len(), MAX_MARKERS);
    }

    #[test]
    fn markers_are_found_in_text_and_literals() {
        let src = "{{ bos_token }}[INST] {{ m['content'] + '<|end|>' }}<end_of_turn>\n{{ x[IDX] }}";
        assert_eq!(markers(src), ["[INST]", "<|end|>", "<end_of_turn>"]);
    }
}
