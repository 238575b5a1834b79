#!/usr/bin/env python3
"""Fails when a workspace crate declares a dependency its code never names.

For each member of the workspace (Cargo.toml's [workspace] members), every entry of
[dependencies] must be named (as `name::`, `use name`, `extern crate name`, or in a
derive or attribute path) somewhere in the crate's sources; every entry of
[dev-dependencies] somewhere in them too (tests live beside the code). A dependency kept
on purpose for its features alone is listed in the crate's Cargo.toml under
[package.metadata.unused-deps] ignore = [...], with a comment saying why.

The same idea as cargo-machete, without installing anything: a plain text search,
which is what cargo-machete does too.
"""

import pathlib
import re
import sys
import tomllib

ROOT = pathlib.Path(__file__).resolve().parent.parent


def members():
    manifest = tomllib.loads((ROOT / "Cargo.toml").read_text())
    return manifest["workspace"]["members"]


def ident(name, spec):
    """The name code uses for a dependency: its key, or `package` renamed, with '-' → '_'."""
    if isinstance(spec, dict) and "package" in spec:
        return name.replace("-", "_")
    return name.replace("-", "_")


def sources(crate):
    text = []
    for path in crate.rglob("*.rs"):
        if "target" in path.parts:
            continue
        text.append(path.read_text(errors="replace"))
    return "\n".join(text)


def used(name, code):
    pattern = rf"(?<![A-Za-z0-9_]){re.escape(name)}\s*::|use\s+{re.escape(name)}\b|extern\s+crate\s+{re.escape(name)}\b"
    return re.search(pattern, code) is not None


def main():
    problems = []
    for member in members():
        crate = ROOT / member
        manifest = tomllib.loads((crate / "Cargo.toml").read_text())
        ignore = set(
            manifest.get("package", {})
            .get("metadata", {})
            .get("unused-deps", {})
            .get("ignore", [])
        )
        code = sources(crate)
        for table in ("dependencies", "dev-dependencies"):
            for name, spec in manifest.get(table, {}).items():
                if name in ignore:
                    continue
                if not used(ident(name, spec), code):
                    problems.append(f"{member}: [{table}] {name} is never used")
    if problems:
        print("unused dependencies (remove them, or list them under "
              "[package.metadata.unused-deps] ignore with a reason):")
        for problem in problems:
            print(f"  {problem}")
        return 1
    print(f"every dependency of the {len(members())} workspace crates is used")
    return 0


if __name__ == "__main__":
    sys.exit(main())
