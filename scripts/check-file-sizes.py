#!/usr/bin/env python3
"""Fails when a production Rust or C# source file is over 500 lines.

A production file is any `.rs` under `functions/*/src`, `protocol/src`, `shared/src`,
`adapters/*/src`, `local/src` or `clients/rust/src`
except test code: `tests.rs` and anything under a `tests/` folder (`contracts/`, the
helpers for tests, is not a production crate). Only the lines before a file's `#[cfg(test)]` module count, so a
file's own unit tests do not push it over. For C#, every `.cs` under
`clients/csharp/Runtime` and `clients/csharp/Samples~` but the generated `*.g.cs` (the
schema's size, not a design choice). Past the limit a file has more than one job:
split it at its seams (the README's layout table shows where things live).
"""

import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
LIMIT = 500


def production_files():
    roots = [ROOT / "protocol" / "src", ROOT / "shared" / "src", ROOT / "local" / "src"]
    roots += sorted((ROOT / "adapters").glob("*/src"))
    roots += [ROOT / "clients" / "rust" / "src"]
    roots += sorted((ROOT / "functions").glob("*/src"))
    for root in roots:
        for path in sorted(root.rglob("*.rs")):
            relative = path.relative_to(root)
            if path.name == "tests.rs" or "tests" in relative.parts[:-1]:
                continue
            yield path
    for root in [ROOT / "clients" / "csharp" / "Runtime", ROOT / "clients" / "csharp" / "Samples~"]:
        for path in sorted(root.rglob("*.cs")):
            if not path.name.endswith(".g.cs"):
                yield path


def production_lines(path):
    """Lines before the file's inline `#[cfg(test)] mod ... {` (a `mod tests;` line
    pointing at another file does not end the count)."""
    lines = path.read_text().splitlines()
    for number, line in enumerate(lines):
        following = lines[number + 1].strip() if number + 1 < len(lines) else ""
        if line.strip() == "#[cfg(test)]" and following.startswith("mod ") and following.endswith("{"):
            return number
    return len(lines)


def main():
    over = [
        (production_lines(path), path.relative_to(ROOT)) for path in production_files()
    ]
    over = [(n, path) for n, path in over if n > LIMIT]
    for n, path in sorted(over, reverse=True):
        print(f"{path}: {n} lines of production code (limit {LIMIT}): split it")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
