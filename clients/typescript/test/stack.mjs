// The real local stack (`cargo run -p local`'s binary) for the client tests: built once
// with cargo, started on a free port in JWT mode with an HS256 secret, and stopped after.
import { spawn, execFileSync } from 'node:child_process';
import { after, before } from 'node:test';
import { createHmac } from 'node:crypto';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const ISSUER = 'https://issuer.example.com/';
export const AUDIENCE = 'my-game';
export const SECRET = 'client-tests-secret-of-at-least-32-bytes';

let built;
/** The `local` binary: $LOCAL_STACK_BIN, or built with cargo once per test process. */
export function localBinary() {
  if (process.env.LOCAL_STACK_BIN) return process.env.LOCAL_STACK_BIN;
  if (!built) {
    execFileSync('cargo', ['build', '--quiet', '-p', 'local', '--bin', 'local'], { cwd: repo, stdio: 'inherit' });
    const target = process.env.CARGO_TARGET_DIR ?? join(repo, 'target');
    built = join(target, 'debug', 'local');
    if (!existsSync(built)) throw new Error(`cargo built no ${built}`);
  }
  return built;
}

const b64 = (value) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
let jti = 0;
/** An HS256 JWT for `sub`, as a token service sharing the stack's secret signs it; distinct each call. */
export function mintToken(sub, { lifetimeSeconds = 3600 } = {}) {
  const now = Math.floor(Date.now() / 1000);
  const header = b64({ alg: 'HS256', typ: 'JWT' });
  const claims = b64({ sub, iss: ISSUER, aud: AUDIENCE, iat: now, exp: now + lifetimeSeconds, jti: `t${++jti}` });
  const signature = createHmac('sha256', SECRET).update(`${header}.${claims}`).digest('base64url');
  return `${header}.${claims}.${signature}`;
}

/** Starts a stack; `env` adds or overrides settings (e.g. MAX_CONNECTION_SECONDS). */
export async function startStack(env = {}) {
  // On memory, whatever the caller's environment: scripts/test.sh exports DYNAMODB_ENDPOINT,
  // and stacks sharing DynamoDB Local's tables would see each other's players.
  const { DYNAMODB_ENDPOINT: _shared, ...inherited } = process.env;
  const child = spawn(localBinary(), [], {
    env: {
      ...inherited,
      PORT: '0',
      RUST_LOG: 'info',
      NO_COLOR: '1',
      AUTH_MODE: 'jwt',
      JWT_ISSUER: ISSUER,
      JWT_AUDIENCE: AUDIENCE,
      JWT_HS256_SECRET: SECRET,
      JWT_LEEWAY_SECONDS: '0',
      SIM_PLACEMENT_DELAY_MS: '100',
      SIM_SERVER_STARTUP_MS: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines = [];
  const liveConnections = new Map();
  let onLine = () => {};
  let buffer = '';
  const read = (chunk) => {
    buffer += chunk;
    let newline;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      lines.push(line);
      // The resume handler's log names each player's live connection.
      const live = /resume: live player_id=(\S+) connection_id=(\S+)/.exec(line);
      if (live) liveConnections.set(live[1], live[2]);
      onLine(line);
    }
  };
  child.stdout.setEncoding('utf8').on('data', read);
  child.stderr.setEncoding('utf8').on('data', read);
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the stack did not start:\n${lines.join('\n')}`)), 60_000);
    child.on('exit', (code) => reject(new Error(`the stack exited (${code}):\n${lines.join('\n')}`)));
    onLine = (line) => {
      const match = /^WebSocket API:\s+(\S+)/.exec(line);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
  });
  onLine = () => {};
  const management = url.replace(/^ws/, 'http');
  return {
    url,
    lines,
    /** The connection id of `player`'s live socket (from the stack's log). */
    connectionId(player) {
      return liveConnections.get(player);
    },
    /** Closes `player`'s socket from the server side (the management API's DeleteConnection). */
    async drop(player) {
      // The log line may trail the resume ack a little.
      await until(() => liveConnections.has(player), `a live connection for ${player} in the log`, 5000);
      const id = liveConnections.get(player);
      const response = await fetch(`${management}/@connections/${encodeURIComponent(id)}`, { method: 'DELETE' });
      if (response.status !== 204) throw new Error(`DeleteConnection answered ${response.status}`);
      return id;
    },
    /** Freezes the whole stack (SIGSTOP) until `resume()`: nothing answers meanwhile. */
    pause() {
      child.kill('SIGSTOP');
    },
    resume() {
      child.kill('SIGCONT');
    },
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGCONT');
      const exited = new Promise((resolve) => child.on('exit', resolve));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}

/**
 * The stack of a `describe` block: started (with `env`, as `startStack`'s) before its tests and
 * stopped after them; the object returned is that stack by the time a test runs.
 */
export function suiteStack(env = {}) {
  const stack = {};
  before(async () => Object.assign(stack, await startStack(env)));
  after(async () => {
    await stack.stop?.();
  });
  return stack;
}

/** Resolves when `predicate()` holds, polling; rejects after `ms` with `what`. */
export async function until(predicate, what, ms = 20_000) {
  const deadline = Date.now() + ms;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
