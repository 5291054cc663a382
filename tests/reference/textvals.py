"""Values as text for the expected-value files of the reference scripts: no digit is lost in
JSON or in JavaScript. An integer is its decimal digits; a float the shortest repr of its value
as a double (an f32 widened exactly), or NaN / Infinity / -Infinity; a boolean true / false; a
complex value [re, im] (each part's text: an f32 widened exactly, or an f64). The Rust tests read them with tests/common/mod.rs
`same` and `kind_of`, the page tests with the same rules in JavaScript."""

from __future__ import annotations

import math

import numpy as np


def kind_of(dtype: str) -> str:
    """The kind of a weightpeek dtype name's values: boolean, complex, integer or float."""
    if dtype == "BOOL":
        return "boolean"
    if dtype in ("C64", "C128", "C32"):
        return "complex"
    return "integer" if dtype[0] in "IU" else "float"


def ftext(x) -> str:
    x = float(x)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    return repr(x)


def vtext(kind: str, v):
    if kind == "integer":
        return str(int(v))
    if kind == "boolean":
        return "true" if bool(v) else "false"
    if kind == "complex":
        # Each part as the double it is (an f32 part widened exactly, or an f64 part).
        return [ftext(np.float64(v.real)), ftext(np.float64(v.imag))]
    return ftext(np.float64(v))
