#!/usr/bin/env python3
"""Fails when a production source file is over 500 lines, in any language of the repo.

Past the limit a file has more than one job: split it at its seams, a module per job
(the README's layout table shows where things live).

What counts: every source file git knows of (tracked, or new and not ignored, so build
output such as target/, node_modules/ and dist/ never does; nor do hidden folders such as
.tools/ and .github/, which hold installed tools and CI settings) written in one of
the repo's languages: Rust (`.rs`: the functions, shared, protocol, local, the Rust
client, tools/ with its bins), TypeScript and JavaScript (`.ts`, `.js`, `.mjs`, `.cjs`:
the TypeScript client, its browser example and build scripts, the local console's
assets), CSS and HTML (the console, the browser example), C# (`.cs`: the Unity package's
Runtime, Samples~ and Generator~), Go (`.go`: the Go game server of
game-server/go-conformance), Python and shell (`.py`, `.sh`, and extensionless
scripts with a `#!` line). Walking git's file list rather than naming folders means a
new file or folder is checked without anyone remembering to add it here.

What does not count, and why:
- test code, whose length follows the cases it covers: the `contracts/` crate (the
  contract suites, fakes and sample events), files under a folder named
  `tests`, `test`, `testing` or `Tests~` (the tests crate, `functions/*/src/tests/`,
  the TypeScript client's `test/`, the C# `Tests~`), Rust files
  named `tests.rs`, Go's `_test.go` files, and a Rust file's lines from its inline `#[cfg(test)] mod ... {` on;
- generated files, whose size is the schema's, not a design choice: any file with a line
  saying it is generated and not to be edited ("Generated ... do not edit", as
  `clients/typescript/src/protocol.ts` and `clients/csharp/Runtime/Protocol.g.cs` start)
  in its first five lines;
- data and configuration (JSON, YAML, TOML, Markdown, lockfiles, the Makefile):
  template.yaml is one CloudFormation document by SAM's design, and splitting it would
  mean nested stacks, a deployment change rather than a refactor.

`--list` prints every file counted with its count, for seeing what the check covers.
"""

import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
LIMIT = 500
SOURCE_SUFFIXES = {".rs", ".ts", ".js", ".mjs", ".cjs", ".css", ".html", ".cs", ".go", ".py", ".sh"}
TEST_FOLDERS = {"tests", "test", "testing", "Tests~"}
# Crates that are test code whole: `contracts/` holds the contract suites every store
# adapter passes (one function per scenario), the fakes and sample events; no function
# links it outside its tests.
TEST_CRATES = {"contracts"}
GENERATED_HEADER_LINES = 5


def repo_files():
    """Tracked files and new ones git does not ignore, relative to the repo's root."""
    listing = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=ROOT, check=True, capture_output=True, text=True,
    ).stdout
    paths = {pathlib.Path(name) for name in listing.split("\0") if name}
    # A deleted but still indexed file is listed too: keep only what exists.
    return sorted(
        path for path in paths
        if (ROOT / path).is_file() and not any(part.startswith(".") for part in path.parts)
    )


def is_source(path):
    if path.suffix in SOURCE_SUFFIXES:
        return True
    if path.suffix:
        return False
    with open(ROOT / path, "rb") as file:
        return file.read(2) == b"#!"


def is_test(path):
    if TEST_FOLDERS.intersection(path.parts[:-1]) or path.parts[0] in TEST_CRATES:
        return True
    if path.name.endswith("_test.go"):
        return True
    return path.suffix == ".rs" and path.name == "tests.rs"


def is_generated(lines):
    header = (line.lower() for line in lines[:GENERATED_HEADER_LINES])
    return any("generated" in line and "do not edit" in line for line in header)


def production_lines(path, lines):
    """For Rust, the lines before the file's inline `#[cfg(test)] mod ... {` (a `mod
    tests;` line pointing at another file does not end the count); otherwise all."""
    if path.suffix != ".rs":
        return len(lines)
    for number, line in enumerate(lines):
        following = lines[number + 1].strip() if number + 1 < len(lines) else ""
        if line.strip() == "#[cfg(test)]" and following.startswith("mod ") and following.endswith("{"):
            return number
    return len(lines)


def counted_files():
    """(production lines, path) of every production source file."""
    for path in repo_files():
        if not is_source(path) or is_test(path):
            continue
        lines = (ROOT / path).read_text(errors="replace").splitlines()
        if is_generated(lines):
            continue
        yield production_lines(path, lines), path


def main(arguments):
    counted = list(counted_files())
    if "--list" in arguments:
        for n, path in counted:
            print(f"{n:5} {path}")
    over = sorted(((n, path) for n, path in counted if n > LIMIT), reverse=True)
    for n, path in over:
        print(f"{path}: {n} lines of production code (limit {LIMIT}): split it")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
