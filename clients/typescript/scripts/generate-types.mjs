#!/usr/bin/env node
// Writes src/protocol.ts, the TypeScript types of protocol/schema.json (the JSON Schema
// generated from the server's Rust types). `--check` fails when the committed file is not
// what the schema generates. Handles the subset of JSON Schema the Rust generator emits:
// $ref into $defs, oneOf/anyOf, const, enum, type (or a list of types), properties with
// required, additionalProperties, items, and descriptions (as doc comments).
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const schemaPath = join(here, '..', '..', '..', 'protocol', 'schema.json');
const outPath = join(here, '..', 'src', 'protocol.ts');

const schema = JSON.parse(readFileSync(schemaPath, 'utf8'));
const defs = schema.$defs;

const doc = (text, indent) => {
  if (!text) return '';
  const lines = text.replace(/\*\//g, '*\\/').split('\n');
  return `${indent}/**\n${lines.map((l) => `${indent} *${l ? ' ' + l : ''}`).join('\n')}\n${indent} */\n`;
};

const key = (name) => (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : JSON.stringify(name));

function type(node, indent) {
  if (node === true || node === undefined) return 'unknown';
  if (node === false) return 'never';
  if (node.$ref) {
    const name = node.$ref.replace('#/$defs/', '');
    // A $ref beside properties (an ack by its `route`): the referenced type and those fields.
    return node.properties ? `${name} & ${object({ ...node, $ref: undefined }, indent)}` : name;
  }
  if (node.const !== undefined) return JSON.stringify(node.const);
  if (node.enum) return node.enum.map((v) => JSON.stringify(v)).join(' | ');
  const union = node.oneOf ?? node.anyOf;
  if (union) {
    const base = node.properties || node.type ? type({ ...node, oneOf: undefined, anyOf: undefined }, indent) : null;
    const parts = union.map((v) => type(v, indent + '  '));
    const joined = parts.length === 1 ? parts[0] : parts.map((p) => `\n${indent}  | ${p}`).join('');
    return base && base !== 'unknown' ? `${base} & (${joined})` : joined;
  }
  if (Array.isArray(node.type)) {
    return node.type.map((t) => type({ ...node, type: t }, indent)).join(' | ');
  }
  switch (node.type) {
    case 'null': return 'null';
    case 'string': return 'string';
    case 'integer':
    case 'number': return 'number';
    case 'boolean': return 'boolean';
    case 'array': return `Array<${type(node.items, indent)}>`;
    case 'object': return object(node, indent);
    default: return node.properties ? object(node, indent) : 'unknown';
  }
}

function object(node, indent) {
  const required = new Set(node.required ?? []);
  const inner = indent + '  ';
  const fields = Object.entries(node.properties ?? {}).map(
    ([name, prop]) =>
      `${doc(prop.description, inner)}${inner}${key(name)}${required.has(name) ? '' : '?'}: ${type(prop, inner)};`,
  );
  const extra = node.additionalProperties;
  if (extra !== undefined && extra !== false && !(node.properties && extra === true && !fields.length)) {
    if (extra === true) fields.push(`${inner}[field: string]: unknown;`);
    else fields.push(`${inner}[field: string]: ${type(extra, inner)};`);
  } else if (!node.properties && extra === undefined) {
    fields.push(`${inner}[field: string]: unknown;`);
  }
  return fields.length ? `{\n${fields.join('\n')}\n${indent}}` : 'Record<string, never>';
}

let out = `// Generated from protocol/schema.json by scripts/generate-types.mjs: do not edit.
// Regenerate with \`npm run generate\` (after regenerating the schema from the Rust types).

`;
for (const [name, node] of Object.entries(defs)) {
  out += `${doc(node.description, '')}export type ${name} = ${type(node, '')};\n\n`;
}
out += `/** A server frame of the given \`type\`. */
export type ServerFrameOf<T extends ServerFrame['type']> = Extract<ServerFrame, { type: T }>;
/** The body of a request to the given \`route\`. */
export type BodyOf<R extends ClientFrame['route']> = Extract<ClientFrame, { route: R }> extends { body?: infer B } ? B : never;
/** An \`error\` frame: a union keyed by \`code\`, each with the fields of its code. */
export type ErrorFrame = ServerFrameOf<'error'>;
/** An \`error\` frame of the given \`code\`, with that code's fields. */
export type ErrorOf<C extends ErrorFrame['code']> = Extract<ErrorFrame, { code: C }>;
/** The fields of the \`ack\` answering a request to the given \`route\`. */
export type AckOf<R extends RouteAck['route']> = Omit<Extract<RouteAck, { route: R }>, 'route'>;
/** Every route a client may send. */
export const ROUTES = ${JSON.stringify(defs.ClientFrame.oneOf.map((v) => v.properties.route.const))} as const;
/** Every error code of \`error\` frames. */
export const ERROR_CODES = ${JSON.stringify((defs.ErrorCode.oneOf ?? [defs.ErrorCode]).flatMap((v) => v.enum ?? [v.const]))} as const;
`;

if (process.argv.includes('--check')) {
  let current = '';
  try { current = readFileSync(outPath, 'utf8'); } catch { /* missing: differs */ }
  if (current !== out) {
    console.error('src/protocol.ts is not what protocol/schema.json generates; run `npm run generate` in clients/typescript and commit it.');
    process.exit(1);
  }
  console.log('src/protocol.ts is current with protocol/schema.json');
} else {
  writeFileSync(outPath, out);
  console.log(`wrote ${outPath}`);
}
