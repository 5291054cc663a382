//! `--check`: every finding on a line of its own, `severity [code] text`, the text as the
//! Checks card shows it ([`checks::lines`]: the tensor, the message, the byte offset); a clean
//! file says what it was checked for.

use crate::check::{Finding, Severity, CHECKS};
use crate::view::checks;

/// The findings (errors first, as [`crate::summary::Summary::findings`] holds them).
pub fn text(findings: &[Finding]) -> String {
    if findings.is_empty() {
        return format!("no problems found; checked: {}\n", CHECKS.join("; "));
    }
    checks::lines(findings)
        .into_iter()
        .map(|l| format!("{} [{}] {}\n", l.severity, l.code, l.text))
        .collect()
}

/// Whether a finding is an error (`--check` then exits with status 1).
pub fn has_error(findings: &[Finding]) -> bool {
    findings.iter().any(|f| f.severity == Severity::Error)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::cli::tests::clean;

    #[test]
    fn one_line_per_finding_as_the_card_words_it() {
        assert!(text(&[]).starts_with("no problems found; checked: the header parses to the end;"));
        assert!(!has_error(&[]));
        let f = |severity, tensor: Option<&str>| Finding {
            severity,
            code: "overlap",
            message: "overlaps\u{7} the next".into(),
            offset: Some(1_048_576),
            tensor: tensor.map(str::to_string),
        };
        let all = [
            f(Severity::Error, Some("a\u{202e}b")),
            f(Severity::Info, None),
        ];
        let out = text(&all);
        assert_eq!(
            out,
            "error [overlap] tensor \"a\\u{202e}b\": overlaps\\u{7} the next (byte 1,048,576)\n\
             note [overlap] overlaps\\u{7} the next (byte 1,048,576)\n"
        );
        for (line, card) in out.lines().zip(checks::lines(&all)) {
            assert!(line.ends_with(&card.text));
        }
        assert!(clean(&out));
        assert!(has_error(&all));
        assert!(!has_error(&all[1..]));
    }
}
