//! The tensor window a person asks for: `rows` and `cols` (each absent, `"A..B"` text, or a
//! `[start, end]` pair, end exclusive) and a NumPy structured array's `field`, read the same way
//! from `weightpeek --tensor … --rows … --cols … --field …`, the page's preview boxes and the
//! JavaScript API's `preview(source, tensor, {rows, cols, field})`.
//!
//! Errors name the input by its key: `rows: 9..5 is empty`, `cols: "x" is not a whole number`,
//! `rows: must be [start, end] (end exclusive) or "start..end"`, `field: must be a field's name
//! (a string)`. [`WindowError::text_for`] puts the front end's own name first instead
//! (`--rows`, `window.rows`, the page's `columns`).

use std::ops::Range;

use serde::{Deserialize, Deserializer};

use super::{whole, Front, Loose};
use crate::preview::{parse_range, Geometry, RangeError, WindowRequest};

/// Rows or columns of a window as given.
#[derive(Debug, Clone, PartialEq)]
pub enum RangeSpec {
    /// `A..B` (end exclusive), `A..` (to the end), `..B`, or a single `A` (that one row or
    /// column), read by [`parse_range`].
    Text(String),
    /// `[start, end]` (end exclusive), as numbers given (checked to be whole, 0 to 2^53).
    Pair(f64, f64),
    /// Anything else (an error when checked).
    Other,
}

impl<'de> Deserialize<'de> for RangeSpec {
    /// Never fails on the value's shape: what is not text nor a pair of numbers is
    /// [`RangeSpec::Other`].
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match Loose::deserialize(d)? {
            Loose::Text(t) => RangeSpec::Text(t),
            Loose::List(l) => match l.as_slice() {
                [Loose::Number(a), Loose::Number(b)] => RangeSpec::Pair(*a, *b),
                _ => RangeSpec::Other,
            },
            _ => RangeSpec::Other,
        })
    }
}

/// A NumPy structured array's field as given: `Some(Ok(name))`, or `Some(Err(()))` for a value
/// that is not a string.
fn field_of<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Result<String, ()>>, D::Error> {
    Ok(match Loose::deserialize(d)? {
        Loose::Absent => None,
        Loose::Text(t) => Some(Ok(t)),
        _ => Some(Err(())),
    })
}

/// The window a person asks for. Every field is optional: without `rows` or `cols` the
/// preview's default window ([`WindowRequest`]'s `None`).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct WindowSpec {
    /// Rows of the tensor (of the field, with `field`).
    pub rows: Option<RangeSpec>,
    /// Columns: decoded values within a row.
    pub cols: Option<RangeSpec>,
    /// A NumPy structured array's field (numpy's `arr['x']`; nested `outer.inner`);
    /// `Err(())` when given as something other than a string (JSON, JavaScript).
    #[serde(deserialize_with = "field_of")]
    pub field: Option<Result<String, ()>>,
}

/// Which range of a window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Axis {
    /// `rows`.
    Rows,
    /// `cols`.
    Cols,
}

/// Why a window cannot be read. `Display`: `<key>: <what is wrong>`, the key as in
/// [`WindowSpec`] (`rows`, `cols`, `field`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WindowError {
    /// The text is not a range (not a whole number, empty, past 64 bits).
    Range {
        /// Which range.
        axis: Axis,
        /// What is wrong.
        error: RangeError,
    },
    /// Neither text nor a `[start, end]` pair of whole numbers (0 to 2^53).
    Shape {
        /// Which range.
        axis: Axis,
    },
    /// `field` is not a string.
    Field,
}

impl WindowError {
    /// The input's name in `front`: `--rows`/`--cols`/`--field` (CLI), `rows`/`columns`/`field`
    /// (the page), `window.rows`/`window.cols`/`window.field` (the API).
    pub fn input_name(&self, front: Front) -> &'static str {
        match (self.axis(), front) {
            (Some(Axis::Rows), Front::Cli) => "--rows",
            (Some(Axis::Rows), Front::Page) => "rows",
            (Some(Axis::Rows), Front::Api) => "window.rows",
            (Some(Axis::Cols), Front::Cli) => "--cols",
            (Some(Axis::Cols), Front::Page) => "columns",
            (Some(Axis::Cols), Front::Api) => "window.cols",
            (None, Front::Cli) => "--field",
            (None, Front::Page) => "field",
            (None, Front::Api) => "window.field",
        }
    }

    /// The message as `front` shows it: [`Display`](std::fmt::Display)'s, with the input named
    /// as in [`WindowError::input_name`].
    pub fn text_for(&self, front: Front) -> String {
        format!("{}: {}", self.input_name(front), self.what())
    }

    fn axis(&self) -> Option<Axis> {
        match self {
            WindowError::Range { axis, .. } | WindowError::Shape { axis } => Some(*axis),
            WindowError::Field => None,
        }
    }

    /// What is wrong, without the input's name.
    fn what(&self) -> String {
        match self {
            WindowError::Range { error, .. } => error.to_string(),
            WindowError::Shape { .. } => {
                "must be [start, end] (end exclusive) or \"start..end\"".into()
            }
            WindowError::Field => "must be a field's name (a string)".into(),
        }
    }
}

impl std::fmt::Display for WindowError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let key = match self.axis() {
            Some(Axis::Rows) => "rows",
            Some(Axis::Cols) => "cols",
            None => "field",
        };
        write!(f, "{key}: {}", self.what())
    }
}

impl std::error::Error for WindowError {}

impl RangeSpec {
    /// The range in a dimension of `max` (rows, or values per row): an open end reaches `max`.
    /// The range is not checked against `max` (the preview plan says when it is past the end).
    fn range(&self, axis: Axis, max: u64) -> Result<Range<u64>, WindowError> {
        match self {
            RangeSpec::Text(t) => {
                parse_range(t, max).map_err(|error| WindowError::Range { axis, error })
            }
            RangeSpec::Pair(a, b) => match (whole(*a, 0.0), whole(*b, 0.0)) {
                (Some(start), Some(end)) if start < end => Ok(start..end),
                (Some(start), Some(end)) => Err(WindowError::Range {
                    axis,
                    error: RangeError::Empty { start, end },
                }),
                _ => Err(WindowError::Shape { axis }),
            },
            RangeSpec::Other => Err(WindowError::Shape { axis }),
        }
    }
}

impl WindowSpec {
    /// The window of the CLI's flags (or any text boxes): each `Some` is `"A..B"` text.
    pub fn from_text(rows: Option<&str>, cols: Option<&str>, field: Option<&str>) -> WindowSpec {
        WindowSpec {
            rows: rows.map(|r| RangeSpec::Text(r.to_string())),
            cols: cols.map(|c| RangeSpec::Text(c.to_string())),
            field: field.map(|f| Ok(f.to_string())),
        }
    }

    /// The structured array's field asked for, if any (the geometry the window is checked
    /// against is that field's: [`crate::preview::target_geometry`]). Errors:
    /// [`WindowError::Field`].
    pub fn field(&self) -> Result<Option<&str>, WindowError> {
        match &self.field {
            None => Ok(None),
            Some(Ok(f)) => Ok(Some(f)),
            Some(Err(())) => Err(WindowError::Field),
        }
    }

    /// The request for a tensor (or field) of geometry `g`: `rows` within `g.rows`, `cols`
    /// within `g.row_values` (open ends reach them). Errors: the field is not a string, a range
    /// is not one (rows are checked before columns). A range past the end is the preview's
    /// error, not this one.
    pub fn request(&self, g: &Geometry) -> Result<WindowRequest, WindowError> {
        let field = self.field()?.map(str::to_string);
        let range =
            |r: &Option<RangeSpec>, axis, max| r.as_ref().map(|r| r.range(axis, max)).transpose();
        Ok(WindowRequest {
            rows: range(&self.rows, Axis::Rows, g.rows)?,
            cols: range(&self.cols, Axis::Cols, g.row_values)?,
            field,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{geometry, json};
    use super::*;

    #[test]
    fn windows_in_every_form() {
        let g = geometry(100, 50);
        let req = |w: &WindowSpec| w.request(&g);
        assert_eq!(req(&WindowSpec::default()), Ok(WindowRequest::default()));
        assert_eq!(req(&json("{}")), Ok(WindowRequest::default()));
        assert_eq!(
            req(&json(r#"{"rows": null, "cols": null, "field": null}"#)),
            Ok(WindowRequest::default())
        );
        let want = WindowRequest {
            rows: Some(3..9),
            cols: Some(10..50),
            field: None,
        };
        assert_eq!(
            req(&WindowSpec::from_text(Some("3..9"), Some("10.."), None)),
            Ok(want.clone())
        );
        assert_eq!(
            req(&json(r#"{"rows": "3..9", "cols": "10.."}"#)),
            Ok(want.clone())
        );
        assert_eq!(
            req(&json(r#"{"rows": [3, 9], "cols": [10, 50]}"#)),
            Ok(want)
        );
        // A single row, an open start, underscores, a float that is whole, a field.
        let w: WindowSpec = json(r#"{"rows": "7", "cols": "..1_0", "field": "pos.y"}"#);
        assert_eq!(
            req(&w),
            Ok(WindowRequest {
                rows: Some(7..8),
                cols: Some(0..10),
                field: Some("pos.y".into()),
            })
        );
        assert_eq!(w.field(), Ok(Some("pos.y")));
        assert_eq!(
            req(&json(r#"{"rows": [1.0, 2.0]}"#)).map(|r| r.rows),
            Ok(Some(1..2))
        );
        // Past the end is the preview plan's error, not the spec's.
        assert_eq!(
            req(&json(r#"{"rows": [0, 300000]}"#)).map(|r| r.rows),
            Ok(Some(0..300000))
        );
    }

    #[test]
    fn every_window_error() {
        let g = geometry(100, 50);
        let err = |w: WindowSpec| w.request(&g).unwrap_err();
        let e = err(WindowSpec::from_text(Some("9..5"), None, None));
        assert_eq!(
            e,
            WindowError::Range {
                axis: Axis::Rows,
                error: RangeError::Empty { start: 9, end: 5 }
            }
        );
        assert_eq!(e.to_string(), "rows: 9..5 is empty");
        assert_eq!(e.text_for(Front::Cli), "--rows: 9..5 is empty");
        assert_eq!(e.text_for(Front::Page), "rows: 9..5 is empty");
        assert_eq!(e.text_for(Front::Api), "window.rows: 9..5 is empty");
        let e = err(WindowSpec::from_text(None, Some("x"), None));
        assert_eq!(e.to_string(), "cols: \"x\" is not a whole number");
        assert_eq!(
            e.text_for(Front::Page),
            "columns: \"x\" is not a whole number"
        );
        assert_eq!(
            e.text_for(Front::Cli),
            "--cols: \"x\" is not a whole number"
        );
        let e = err(WindowSpec::from_text(
            Some("18446744073709551615"),
            None,
            None,
        ));
        assert_eq!(e.to_string(), "rows: number too large");
        for bad in [
            r#"{"rows": [1]}"#,
            r#"{"rows": [1, 2, 3]}"#,
            r#"{"rows": [-1, 2]}"#,
            r#"{"rows": [0.5, 2]}"#,
            r#"{"rows": [0, 1e300]}"#,
            r#"{"rows": ["0", "2"]}"#,
            r#"{"rows": 3}"#,
            r#"{"rows": true}"#,
            r#"{"rows": {"start": 0}}"#,
        ] {
            let e = err(json(bad));
            assert_eq!(e, WindowError::Shape { axis: Axis::Rows }, "{bad}");
            assert_eq!(
                e.text_for(Front::Api),
                "window.rows: must be [start, end] (end exclusive) or \"start..end\"",
                "{bad}"
            );
        }
        let e = err(json(r#"{"field": 3}"#));
        assert_eq!(e, WindowError::Field);
        assert_eq!(e.to_string(), "field: must be a field's name (a string)");
        assert_eq!(
            e.text_for(Front::Api),
            "window.field: must be a field's name (a string)"
        );
        assert_eq!(
            e.text_for(Front::Cli),
            "--field: must be a field's name (a string)"
        );
        // Rows are checked before columns.
        let e = err(json(r#"{"rows": "x", "cols": "y"}"#));
        assert_eq!(e.to_string(), "rows: \"x\" is not a whole number");
    }
}
