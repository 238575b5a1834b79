// The console in headless Chromium (run by local/tests/console.rs, which has started a
// stack and connected alice and bob, placed alice in a game and made some relations):
//   node browser.js <console URL> <screenshot directory>
// Needs CHROMIUM_PATH (Debian's chromium) and BROWSER_NODE_PATH (node_modules holding
// playwright-core), as scripts/test.sh's install_browser_tools exports them.
// Exits 0 when every check passed; otherwise prints what failed and exits 1.
"use strict";

const path = require("path");
const { chromium } = require(path.join(process.env.BROWSER_NODE_PATH, "playwright-core"));

const [url, shots] = process.argv.slice(2);
const TIMEOUT = 20_000;

function step(text) {
  console.log(`browser: ${text}`);
}

// Waits until `predicate(arg)` holds in the page; fails with `what` and the page's text.
async function until(page, what, predicate, arg) {
  try {
    await page.waitForFunction(predicate, arg, { timeout: TIMEOUT, polling: 100 });
    step(`ok: ${what}`);
  } catch (error) {
    const text = await page
      .evaluate(() => ["#players", "#connections", "#placements", "#client-log", "#feed-list"].map((s) => document.querySelector(s).innerText).join("\n---\n"))
      .catch(() => "");
    throw new Error(`${what}: not seen within ${TIMEOUT} ms (${error.message.split("\n")[0]})\n--- page text ---\n${text.slice(0, 4000)}`);
  }
}

const presenceOf = ([player, presence]) => {
  const cell = document.querySelector(`#players tr[data-player="${player}"] td.presence`);
  return cell && cell.textContent === presence;
};

// Every console message of type error and every uncaught page error, per page.
function watchErrors(page, errors) {
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(`console.error: ${message.text()}`);
  });
  page.on("pageerror", (error) => errors.push(`page error: ${error.message}`));
  page.on("requestfailed", (request) => {
    // The live stream is cut when the page closes: that is no error of the page's.
    if (!request.url().endsWith("/console/api/events")) {
      errors.push(`request failed: ${request.url()} ${request.failure() && request.failure().errorText}`);
    }
  });
}

async function desktop(browser, errors) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  watchErrors(page, errors);
  await page.goto(url);
  await until(page, "the live stream is connected", () => document.querySelector("#link").dataset.state === "live");

  // Both players online, as the test connected them.
  await until(page, "alice is online", presenceOf, ["alice", "online"]);
  await until(page, "bob is online", presenceOf, ["bob", "online"]);
  await until(page, "both have an open connection", () => {
    const players = Array.from(document.querySelectorAll("#connections td.player")).map((td) => td.textContent);
    return players.includes("alice") && players.includes("bob");
  });

  // The relations the test made, each on the side that sees it: alice and bob friends
  // (alice's activity beside her presence), dave's invitation to alice, bob's block on erin.
  const friendsRow = ([player, cells]) => {
    const row = document.querySelector(`#friends tr[data-friends="${player}"]`);
    return row !== null && cells.every((text, i) => row.cells[i + 1].textContent === text);
  };
  await until(page, "bob's friend alice with her presence and activity, and his block", friendsRow, ["bob", ["alice (online, in a game)", "", "", "erin"]]);
  await until(page, "alice's friend bob and dave's invitation", friendsRow, ["alice", ["bob (online)", "", "dave", ""]]);
  await until(page, "dave's invitation sent to alice", friendsRow, ["dave", ["", "alice", "", ""]]);
  await until(page, "alice's activity in the players section", () => document.querySelector('#players tr[data-player="alice"] td.activity')?.textContent === "in a game");

  // Alice's placement FULFILLED, with its game session, which the fleet shows ACTIVE.
  await until(page, "a placement FULFILLED with its game session", () =>
    Array.from(document.querySelectorAll("#placements tbody tr")).some((tr) => {
      const status = tr.querySelector("td.status").textContent;
      const game = tr.querySelector("td.game-session").textContent;
      return status === "FULFILLED" && game.length > 0 && document.querySelector(`#game-sessions tr[data-game-session="${game}"] td.status`)?.textContent === "ACTIVE";
    }),
  );

  // Dave's and erin's matchmaking tickets, COMPLETED.
  await until(page, "two matchmaking tickets COMPLETED", () =>
    Array.from(document.querySelectorAll("#tickets tbody tr td.status")).filter((td) => td.textContent === "COMPLETED").length === 2,
  );

  // A player from the page: carol opens a socket, resumes, and messages bob.
  await page.fill("#player-id", "carol");
  await page.click("#connect-form button[type=submit]");
  await until(page, "carol's socket is open", () => document.querySelector("#client-log li.log-open") !== null);
  await page.fill("#route", "resume");
  await page.fill("#body", "{}");
  await page.click("#send-form button[type=submit]");
  await until(page, "carol's resume is acked", () =>
    Array.from(document.querySelectorAll("#client-log li.log-in code")).some((c) => c.textContent.includes('"route":"resume"')),
  );
  await page.fill("#route", "sendMessage");
  await page.fill("#body", JSON.stringify({ playerIds: ["bob"], message: { text: "gg from the console" } }));
  await page.click("#send-form button[type=submit]");
  await until(page, "the message to bob is in the feed", () =>
    Array.from(document.querySelectorAll('#feed-list li[data-kind="frameOut"]')).some(
      (li) => li.dataset.players === "bob" && li.textContent.includes("gg from the console") && li.querySelector(".summary").textContent.includes("message"),
    ),
  );
  await until(page, "carol is online too", presenceOf, ["carol", "online"]);
  await page.fill("#route", "createParty");
  await page.fill("#body", "{}");
  await page.click("#send-form button[type=submit]");
  await until(page, "carol's party is in the parties section, with her leading it", () =>
    Array.from(document.querySelectorAll("#parties tbody tr")).some((tr) => tr.cells[1].textContent === "carol" && tr.cells[2].textContent.includes("carol (online)")),
  );

  // The feed filters by player.
  await page.selectOption("#feed-player", "bob");
  await until(page, "filtered on bob, the feed shows only bob's events", () => {
    const shown = Array.from(document.querySelectorAll("#feed-list li")).filter((li) => !li.hidden);
    return shown.length > 0 && shown.every((li) => li.dataset.players.split(" ").includes("bob"));
  });
  await page.selectOption("#feed-player", "");
  await page.screenshot({ path: path.join(shots, "console-desktop.png") });

  // Bob drops (abruptly, from the console): in grace, then offline once the grace ends.
  await page.click('#connections tr:has(td.player:text-is("bob")) button:text-is("Drop")');
  await until(page, "bob is in grace after the drop", presenceOf, ["bob", "in grace"]);
  await page.screenshot({ path: path.join(shots, "console-grace.png") });
  await until(page, "bob is offline once the grace period ended", presenceOf, ["bob", "offline"]);
  await until(page, "bob's disconnect (1006) is in the feed", () =>
    Array.from(document.querySelectorAll('#feed-list li[data-kind="disconnected"]')).some((li) => li.dataset.players === "bob" && li.textContent.includes("1006")),
  );
  await until(page, "alice is still online", presenceOf, ["alice", "online"]);
  await page.screenshot({ path: path.join(shots, "console-after-drop.png") });

  // The metrics card, from the handlers' EMF lines: what the test and the page did.
  const series = (name, dims) => `#metric-series tr[data-metric="${name} ${dims}"] td:nth-child(3)`;
  const value = ([selector, atLeast]) => {
    const cell = document.querySelector(selector);
    return cell !== null && parseFloat(cell.textContent) >= atLeast;
  };
  await until(page, "metrics: frames posted to live sockets", value, [series("Deliveries", "Outcome=posted"), 1]);
  await until(page, "metrics: the delivery lag histogram has values", () =>
    Array.from(document.querySelectorAll("#lag-histogram .bar")).reduce((n, bar) => n + Number(bar.dataset.count), 0) >= 1,
  );
  await until(page, "metrics: sendMessage requests counted", value, [series("Requests", "Route=sendMessage"), 1]);
  await until(page, "metrics: alice's placement FULFILLED on the simulated queue", () =>
    Array.from(document.querySelectorAll('#metric-series tr[data-metric^="Placements "]')).some((tr) => tr.dataset.metric.endsWith("Status=FULFILLED")),
  );
  await until(page, "metrics: two matchmaking tickets COMPLETED", value, [series("MatchmakingTickets", "Status=COMPLETED"), 2]);
  await until(page, "metrics: bob swept offline by the sweeper", value, [series("SweepSwept", ""), 1]);
  await until(page, "metrics: players online from the sweeper's scan", () => {
    const tile = document.querySelector('#metric-tiles [data-tile="Players online"] strong');
    return tile !== null && Number(tile.textContent) >= 1;
  });
  await until(page, "metrics: every EMF line is valid", () => /EMF lines/.test(document.querySelector("#metrics .count").textContent) && !document.querySelector("#metrics").dataset.invalid);
  // The card alone, below the sticky header (which would cover its title).
  await page.evaluate(() => {
    const header = document.querySelector(".top").getBoundingClientRect().height;
    window.scrollTo(0, document.querySelector("#metrics").getBoundingClientRect().top + window.scrollY - header - 8);
  });
  await page.locator("#metrics").screenshot({ path: path.join(shots, "console-metrics.png") });
  await context.close();
}

async function phone(browser, errors) {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
  const page = await context.newPage();
  watchErrors(page, errors);
  await page.goto(url);
  await until(page, "on a phone, alice is online", presenceOf, ["alice", "online"]);
  await until(page, "on a phone, bob is offline", presenceOf, ["bob", "offline"]);
  const widths = await page.evaluate(() => ({ page: document.documentElement.scrollWidth, view: window.innerWidth }));
  if (widths.page > widths.view) {
    throw new Error(`on a phone the page is ${widths.page} px wide in a ${widths.view} px viewport (it scrolls sideways)`);
  }
  step(`ok: on a phone nothing is wider than the screen (${widths.page} <= ${widths.view} px)`);
  const card = await page.locator("#players").boundingBox();
  if (!card || card.width > 390) throw new Error(`the players card is ${card && card.width} px wide on a 390 px screen`);
  await page.screenshot({ path: path.join(shots, "console-phone.png"), fullPage: false });
  await context.close();
}

(async () => {
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH, args: ["--no-sandbox"] });
  const errors = [];
  try {
    await desktop(browser, errors);
    await phone(browser, errors);
  } finally {
    await browser.close();
  }
  if (errors.length) throw new Error(`the browser logged errors:\n${errors.join("\n")}`);
  step("every check passed; no error in the browser's log");
})().catch((error) => {
  console.error(`browser: FAILED: ${error.message}`);
  process.exit(1);
});
