#!/usr/bin/env python3
"""Trunk post-build hook: give the offline service worker (www/sw.js) its file list and version.

The worker keeps the built app's files in a cache named after their contents, so a new build is
a new cache (installed on the next visit, the old one dropped). This writes, into the staged
sw.js, the list of every staged file but sw.js itself (relative to the app's root: the worker's
scope) and a version: the first 16 hex digits of a sha256 over each file's path and bytes.
Run by Trunk (Trunk.toml [[hooks]], stage post_build) with TRUNK_STAGING_DIR set; index.html is
hashed as staged (after scripts/csp_hook.py: Trunk.toml runs both in one command), which changes
whenever anything it loads changes. With WEIGHTPEEK_NO_SW set (scripts/serve.sh) it leaves the
worker's version 'dev', which caches nothing.
"""
import hashlib
import json
import os
import re
import sys
from pathlib import Path


def main() -> None:
    staging = os.environ.get("TRUNK_STAGING_DIR")
    if not staging:
        sys.exit("sw_hook: TRUNK_STAGING_DIR is not set (run by trunk build)")
    root = Path(staging)
    sw = root / "sw.js"
    if not sw.is_file():
        sys.exit("sw_hook: no sw.js staged (index.html must copy www/sw.js)")
    files = sorted(
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.is_file() and p.name != "sw.js"
    )
    if "index.html" not in files:
        sys.exit("sw_hook: no index.html staged")
    if os.environ.get("WEIGHTPEEK_NO_SW"):
        # scripts/serve.sh: a development server caches nothing (every reload shows the build).
        return
    digest = hashlib.sha256()
    for name in files:
        digest.update(name.encode("utf-8") + b"\0")
        digest.update((root / name).read_bytes())
    build = json.dumps({"version": digest.hexdigest()[:16], "files": files})
    text = sw.read_text(encoding="utf-8")
    line = f"const BUILD = {build};"
    text, n = re.subn(r"^const BUILD = \{.*\};$", lambda _: line, text, count=1, flags=re.M)
    if n != 1:
        sys.exit("sw_hook: no `const BUILD = {...};` line in sw.js")
    sw.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
