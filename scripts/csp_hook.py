#!/usr/bin/env python3
"""Trunk post-build hook: give the built page a Content-Security-Policy.

The page's scripts are files (early.js, page.js: the modules are loaded by page.js, Trunk writes
no loader for them); an inline script, should one appear, is allowed by its sha256 hash only,
never by 'unsafe-inline'. Run by Trunk (Trunk.toml [[hooks]], stage post_build) with TRUNK_STAGING_DIR set.

The policy (why each part):
  default-src 'self'                      everything from the page's own origin only;
  script-src 'self' ['sha256-…'] 'wasm-unsafe-eval'
                                          the page's scripts, the wasm-bindgen glue, and
                                          compiling the wasm module; no eval, no other inline script;
  style-src 'self'                        the stylesheet only: computed styles (colours, row heights)
                                          are set through the CSSOM (src/web/dom.rs `style`), which
                                          the policy allows, never as style attributes;
  img-src 'self' data: blob:              the favicon (data: URL) and canvas exports;
  connect-src 'self' https: http:         remote model files and the Hub API (any server the
                                          person names); a dropped file makes no request at all;
  object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors are not settable by meta.
"""
import base64
import hashlib
import os
import re
import sys
from pathlib import Path


def main() -> None:
    staging = os.environ.get("TRUNK_STAGING_DIR")
    if not staging:
        sys.exit("csp_hook: TRUNK_STAGING_DIR is not set (run by trunk build)")
    index = Path(staging) / "index.html"
    html = index.read_text(encoding="utf-8")
    scripts = re.findall(r"<script(?![^>]*\bsrc=)[^>]*>(.*?)</script>", html, flags=re.S)
    hashes = "".join(
        " 'sha256-"
        + base64.b64encode(hashlib.sha256(s.encode("utf-8")).digest()).decode()
        + "'"
        for s in scripts
    )
    policy = (
        "default-src 'self'; "
        f"script-src 'self'{hashes} 'wasm-unsafe-eval'; "
        "style-src 'self'; "
        "img-src 'self' data: blob:; "
        "connect-src 'self' https: http:; "
        "object-src 'none'; base-uri 'none'; form-action 'none'"
    )
    meta = f'<meta http-equiv="Content-Security-Policy" content="{policy}">'
    html, n = re.subn(r"<head>", "<head>\n  " + meta, html, count=1)
    if n != 1:
        sys.exit("csp_hook: no <head> in index.html")
    index.write_text(html, encoding="utf-8")


if __name__ == "__main__":
    main()
