// The console page: live state and feed from /console/api/events (Server-Sent Events),
// actions posted to /console/api/..., and in-page player sockets.
(() => {
  "use strict";

  const { sections, drawSection, fmt, el, number } = window.ConsoleViews;
  const { ROUTES, PlayerSocket, socketUrl } = window.ConsoleClient;

  const $ = (selector) => document.querySelector(selector);
  const MAX_FEED = 500;
  const MAX_LOG = 200;

  let stack = null;
  let lastState = null;
  const seenFeed = new Set();
  const sockets = new Map();

  // --- notices and actions --------------------------------------------------------------

  let noticeTimer = null;
  function notice(text, kind = "ok") {
    const box = $("#notice");
    box.textContent = text;
    box.dataset.kind = kind;
    clearTimeout(noticeTimer);
    noticeTimer = setTimeout(() => (box.textContent = ""), 6000);
  }

  // Posts a console action; says how it went (errors are shown, not thrown).
  async function act(path, body = {}) {
    try {
      const response = await fetch(`/console/api/${path}`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
      const answer = await response.json();
      if (response.ok) notice(answer.done || "done");
      else notice(`${answer.error}: ${answer.message}`, "error");
      return answer;
    } catch (e) {
      notice(`the stack did not answer: ${e.message}`, "error");
      return null;
    }
  }

  const views = sections(act);

  // --- state ------------------------------------------------------------------------------

  function drawSectionCard(name, rows) {
    const card = document.querySelector(`section[data-section="${name}"]`);
    const view = views[name];
    if (!card || !view) return;
    const table = card.querySelector("table");
    if (rows && rows.error) {
      card.querySelector(".count").textContent = `(error: ${rows.error})`;
      return;
    }
    const count = drawSection(view, table, rows, lastState);
    const total = lastState.totals && lastState.totals[name];
    card.querySelector(".count").textContent = total > count ? `(${count} of ${total})` : `(${count})`;
    const empty = card.querySelector(".empty");
    if (empty) empty.hidden = count > 0;
  }

  function drawFleet(fleet) {
    const card = $("#fleet");
    drawSection(views.servers, $("#servers"), fleet.servers, lastState);
    drawSection(views.gameSessions, $("#game-sessions"), fleet.gameSessions, lastState);
    drawSection(views.playerSessions, $("#player-sessions"), fleet.playerSessions, lastState);
    drawSection(views.playerConnections, $("#player-connections"), fleet.playerConnections, lastState);
    const c = fleet.capacity;
    card.querySelector(".count").textContent = `(${c.servers} servers)`;
    $("#capacity").textContent =
      `${c.activeGames} of ${c.slots} game slots in use; ${c.serversReady} server(s) ready for a game; ` +
      `placements wait ${fleet.placementDelayMs} ms, time out after ${fleet.queueTimeoutSeconds} s; games last ${fleet.gameSessionSeconds} s; ` +
      `player gateway ${fleet.playerGateway}, ${fleet.connectionDetailsCalls} GetPlayerConnectionDetails call(s).` +
      (fleet.faults.failPlacements ? " FAILING every placement." : "") +
      (fleet.faults.failConnectionDetails ? " THROTTLING every GetPlayerConnectionDetails." : "");
    card.dataset.failing = fleet.faults.failPlacements || fleet.faults.failConnectionDetails ? "yes" : "no";
    const fail = $("#fail-placements");
    const failDetails = $("#fail-connection-details");
    const delay = $("#placement-delay");
    if (document.activeElement !== fail && !fail.dataset.dirty) fail.checked = fleet.faults.failPlacements;
    if (document.activeElement !== failDetails && !failDetails.dataset.dirty) failDetails.checked = fleet.faults.failConnectionDetails;
    if (document.activeElement !== delay && !delay.dataset.dirty) delay.value = fleet.placementDelayMs;
  }

  // The metrics card: headline tiles, the delivery lag histogram, every series.
  function drawMetrics(metrics) {
    const card = $("#metrics");
    const series = metrics.series || [];
    const count = drawSection(views.metrics, $("#metric-series"), series, lastState);
    card.querySelector(".count").textContent = `(${count} series, ${metrics.documents} EMF lines, ${metrics.bytes} bytes)`;
    card.querySelector(".empty").hidden = count > 0;
    if (metrics.invalid > 0) card.dataset.invalid = String(metrics.invalid);
    if (metrics.namespace) $("#metrics-namespace").textContent = `namespace ${metrics.namespace}`;
    const of = (name, dims = {}) =>
      series.filter((s) => s.name === name && Object.entries(dims).every(([k, v]) => s.dimensions[k] === v));
    const sum = (name, dims) => of(name, dims).reduce((total, s) => total + s.total, 0);
    // A metric's series with exactly these keys: its default set, not the detailed one
    // DETAILED_METRICS adds besides (counting both would count twice).
    const exactly = (name, keys, dims = {}) =>
      of(name, dims).filter((s) => Object.keys(s.dimensions).sort().join() === [...keys].sort().join());
    const total = (list) => list.reduce((sum, s) => sum + s.total, 0);
    const requests = total(exactly("Requests", ["Route"]));
    const online = of("PlayersOnline")[0];
    const lag = of("DeliveryLag")[0];
    const tiles = [
      ["Players online", online ? number(online.last) : "–", "the sweeper's count"],
      ["Delivered", number(sum("Deliveries", { Outcome: "posted" })), `of ${number(sum("Deliveries"))} pushed`],
      ["Lag p50 / p99", lag ? `${number(lag.p50)} / ${number(lag.p99)}` : "–", "ms, insert to post"],
      ["Refusals", number(total(exactly("Refusals", ["Code"]))), requests ? `of ${number(requests)} requests` : "by code"],
      ["Placements", number(total(exactly("Placements", ["Status"], { Status: "FULFILLED" }))), `fulfilled of ${number(total(exactly("Placements", ["Status"])))}`],
      ["Rate limited", number(total(exactly("Refusals", ["Code"], { Code: "rate_limited" }))), "calls"],
    ];
    $("#metric-tiles").replaceChildren(
      ...tiles.map(([label, value, sub]) => {
        const tile = el("div", { class: "tile", "data-tile": label });
        tile.append(el("span", { class: "tile-label" }, label), el("strong", {}, value), el("span", { class: "muted small" }, sub));
        return tile;
      }),
    );
    const counts = metrics.lag.counts;
    const most = Math.max(1, ...counts);
    $("#lag-histogram").replaceChildren(
      ...counts.map((n, i) => {
        const bound = metrics.lag.boundsMs[i];
        const label = bound === undefined ? `>${metrics.lag.boundsMs[i - 1]}` : `≤${bound}`;
        const bar = el("div", { class: "bar", title: `${label} ms: ${n}`, "data-count": n });
        const fill = el("span", { class: "fill" });
        fill.style.height = `${Math.round((n / most) * 100)}%`;
        bar.append(el("span", { class: "bar-count small" }, String(n)), fill, el("span", { class: "bar-label small muted" }, label));
        return bar;
      }),
    );
  }

  function drawStack(info) {
    if (stack) return;
    stack = info;
    $("#stack-info").textContent =
      `stage ${info.stage} · auth ${info.authMode} · ${info.storage} · grace ${info.reconnectGraceSeconds}s · ` +
      `heartbeat timeout ${info.heartbeatTimeoutSeconds}s · sweep every ${info.sweepIntervalSeconds}s`;
    $("#token-label").hidden = info.authMode !== "jwt";
  }

  function drawPlayerFilter(players) {
    const select = $("#feed-player");
    const have = new Set(Array.from(select.options).map((o) => o.value));
    for (const p of players) {
      if (!have.has(p.playerId)) select.appendChild(el("option", { value: p.playerId }, p.playerId));
    }
  }

  function onState(state) {
    lastState = state;
    drawStack(state.stack);
    for (const [name, rows] of Object.entries(state)) {
      if (name === "totals" || name === "stack") continue;
      if (name === "fleet") drawFleet(rows);
      else if (name === "metrics") drawMetrics(rows);
      else if (Array.isArray(rows) || (rows && rows.error)) drawSectionCard(name, rows);
    }
    if (Array.isArray(state.players)) drawPlayerFilter(state.players);
  }

  // --- feed -------------------------------------------------------------------------------

  function feedVisible(item) {
    const player = $("#feed-player").value;
    const kind = $("#feed-kind").value;
    const players = item.dataset.players ? item.dataset.players.split(" ") : [];
    return (!player || players.includes(player)) && (!kind || item.dataset.kind === kind);
  }

  function feedItem(event) {
    const item = el("li", {
      class: "feed-item",
      "data-kind": event.kind,
      "data-players": event.playerIds.join(" "),
      "data-id": event.id,
    });
    const line = el("div", { class: "line" });
    line.append(
      el("time", { class: "muted small" }, fmt.time(event.at)),
      el("span", { class: `kind k-${event.kind}` }, event.kind),
      el("span", { class: "summary" }, event.summary),
    );
    if (event.detail) {
      const details = el("details");
      details.append(el("summary", {}, "detail"), el("pre", {}, event.detail));
      line.appendChild(details);
    }
    item.appendChild(line);
    item.hidden = !feedVisible(item);
    return item;
  }

  function onFeed(events) {
    if ($("#feed-pause").checked) return;
    const list = $("#feed-list");
    // Under load a batch may hold more than the list keeps: only the newest count.
    for (const event of events.slice(-MAX_FEED)) {
      if (seenFeed.has(event.id)) continue;
      seenFeed.add(event.id);
      list.prepend(feedItem(event));
    }
    while (list.children.length > MAX_FEED) {
      seenFeed.delete(Number(list.lastElementChild.dataset.id));
      list.lastElementChild.remove();
    }
    $("#feed .count").textContent = `(${list.children.length})`;
  }

  function refilterFeed() {
    for (const item of $("#feed-list").children) item.hidden = !feedVisible(item);
  }

  // --- the live stream --------------------------------------------------------------------

  function connectEvents() {
    const link = $("#link");
    const source = new EventSource("/console/api/events");
    source.addEventListener("open", () => {
      link.textContent = "live";
      link.dataset.state = "live";
    });
    source.addEventListener("error", () => {
      // EventSource reconnects by itself.
      link.textContent = "reconnecting…";
      link.dataset.state = "down";
    });
    source.addEventListener("state", (e) => onState(JSON.parse(e.data)));
    source.addEventListener("feed", (e) => onFeed(JSON.parse(e.data)));
    source.addEventListener("lagged", (e) => notice(`the feed skipped ${JSON.parse(e.data).missed} event(s)`, "error"));
  }

  // --- in-page players --------------------------------------------------------------------

  function log(playerId, direction, text) {
    const list = $("#client-log");
    const item = el("li", { class: `log-${direction}`, "data-player": playerId });
    item.append(el("time", { class: "muted small" }, fmt.time(Date.now())), el("b", {}, ` ${playerId} ${direction} `), el("code", {}, text));
    list.prepend(item);
    while (list.children.length > MAX_LOG) list.lastElementChild.remove();
  }

  function drawSockets() {
    const select = $("#send-as");
    const chosen = select.value;
    select.replaceChildren(...Array.from(sockets.keys()).map((id) => el("option", { value: id }, id)));
    if (sockets.has(chosen)) select.value = chosen;
  }

  function openSocket(event) {
    event.preventDefault();
    const playerId = $("#player-id").value.trim();
    const token = $("#token").value.trim();
    if (!playerId && !token) return;
    const name = playerId || "token";
    if (sockets.has(name)) sockets.get(name).close();
    const url = socketUrl(stack ? stack.webSocketPath : "/Development", playerId, token);
    const socket = new PlayerSocket(url, name, (direction, text) => {
      log(name, direction, text);
      if (direction === "close" && sockets.get(name) === socket) {
        sockets.delete(name);
        drawSockets();
      }
    });
    socket.ws.addEventListener("open", () => {
      if ($("#auto-heartbeat").checked && stack) {
        socket.startHeartbeats(Math.max(1000, (stack.heartbeatTimeoutSeconds * 1000) / 3));
      }
    });
    sockets.set(name, socket);
    drawSockets();
    $("#send-as").value = name;
  }

  function sendFrame(event) {
    event.preventDefault();
    const socket = sockets.get($("#send-as").value);
    if (!socket || !socket.open) {
      notice("open a socket first (and wait for it to open)", "error");
      return;
    }
    let body;
    try {
      body = JSON.parse($("#body").value || "{}");
    } catch (e) {
      notice(`the body is not JSON: ${e.message}`, "error");
      return;
    }
    socket.send($("#route").value.trim(), body, $("#request-id").value.trim());
  }

  function setUp() {
    const routes = $("#routes");
    for (const name of Object.keys(ROUTES)) routes.appendChild(el("option", { value: name }));
    // Picking a route shows its example body, unless the body was edited by hand.
    let example = "{}";
    $("#route").addEventListener("input", () => {
      const next = ROUTES[$("#route").value.trim()];
      const body = $("#body");
      if (next && (body.value.trim() === "" || body.value === example)) {
        example = JSON.stringify(next);
        body.value = example;
      }
    });
    $("#connect-form").addEventListener("submit", openSocket);
    $("#send-form").addEventListener("submit", sendFrame);
    $("#close-socket").addEventListener("click", () => {
      const socket = sockets.get($("#send-as").value);
      if (socket) socket.close();
    });
    $("#faults-form").addEventListener("submit", async (e) => {
      e.preventDefault();
      const body = {
        failPlacements: $("#fail-placements").checked,
        failConnectionDetails: $("#fail-connection-details").checked,
      };
      const delay = $("#placement-delay").value;
      if (delay !== "") body.placementDelayMs = Number(delay);
      await act("fleet/faults", body);
      delete $("#fail-placements").dataset.dirty;
      delete $("#fail-connection-details").dataset.dirty;
      delete $("#placement-delay").dataset.dirty;
    });
    for (const id of ["#fail-placements", "#fail-connection-details", "#placement-delay"]) {
      $(id).addEventListener("input", () => ($(id).dataset.dirty = "yes"));
    }
    $("#feed-player").addEventListener("change", refilterFeed);
    $("#feed-kind").addEventListener("change", refilterFeed);
    connectEvents();
  }

  setUp();
})();
