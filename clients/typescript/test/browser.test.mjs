// The example page in headless Chromium (Debian's, driven by playwright-core; nothing is
// downloaded): it connects with ?token= to a JWT-mode local stack, gets a placement
// pushed and a message from another player, and the test reads them off the page.
// Needs CHROMIUM_PATH and BROWSER_NODE_PATH (scripts/test.sh's install_browser_tools).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GameSocketsClient } from '../dist/index.js';
import { mintToken, startStack } from './stack.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.map': 'application/json' };

/** Serves the package folder (the example page and dist/) on a free port. */
function serve() {
  const server = createServer(async (request, response) => {
    const path = normalize(decodeURIComponent(new URL(request.url, 'http://x').pathname));
    const file = join(root, path.endsWith('/') ? `${path}index.html` : path);
    if (!file.startsWith(root)) return response.writeHead(403).end();
    try {
      const body = await readFile(file);
      response.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(body);
    } catch {
      response.writeHead(404).end();
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const skip = !process.env.CHROMIUM_PATH || !process.env.BROWSER_NODE_PATH
  ? 'set CHROMIUM_PATH and BROWSER_NODE_PATH (scripts/test.sh installs them)'
  : false;

describe('the browser example', { skip }, () => {
  let stack;
  let server;
  let browser;
  before(async () => {
    stack = await startStack();
    server = await serve();
    const require = createRequire(import.meta.url);
    const { chromium } = require(join(process.env.BROWSER_NODE_PATH, 'playwright-core'));
    browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH, args: ['--no-sandbox'] });
  });
  after(async () => {
    await browser?.close();
    server?.close();
    await stack?.stop();
  });

  it('given a token in the page URL, then the page connects, shows a pushed placement and a message', async () => {
    const page = await browser.newPage();
    const logs = [];
    page.on('console', (message) => logs.push(message.text()));
    page.on('pageerror', (error) => logs.push(String(error)));
    const { port } = server.address();
    const query = new URLSearchParams({ url: stack.url, token: mintToken('browser-alice') });
    await page.goto(`http://127.0.0.1:${port}/examples/browser/?${query}`);
    await page.waitForFunction(() => document.getElementById('state').textContent === 'live', null, { timeout: 15_000 })
      .catch((e) => assert.fail(`the page never went live: ${e}\n${logs.join('\n')}`));
    assert.match(await page.textContent('#resumed'), /as browser-alice/);

    await page.click('#place');
    await page.waitForSelector('#placements li', { timeout: 10_000 });
    assert.match(await page.textContent('#placements li'), /FULFILLED at localhost:\d+/);

    const bob = new GameSocketsClient({ url: stack.url, token: () => mintToken('browser-bob') });
    await bob.connect();
    await bob.sendMessage(['browser-alice'], { text: 'gg from node' });
    await page.waitForSelector('#messages li', { timeout: 10_000 });
    assert.equal(await page.textContent('#messages li'), 'browser-bob: {"text":"gg from node"}');
    bob.close();

    if (process.env.BROWSER_SCREENSHOT) await page.screenshot({ path: process.env.BROWSER_SCREENSHOT, fullPage: true });
    assert.equal(await page.textContent('#errors'), '', `no errors on the page: ${logs.join('\n')}`);
  });
});
