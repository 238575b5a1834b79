// How each section of the state is drawn: a table per section, rows kept by key (so a
// button under the pointer survives the next update), cells updated in place.
// Adding a section (matchmaking tickets, say): one entry in SECTIONS, keyed by the name
// the API uses, and a <section data-section="..."> in index.html.
(() => {
  "use strict";

  const fmt = {
    ago(ms) {
      if (ms === null || ms === undefined) return "";
      const s = Math.max(0, Math.round(ms / 1000));
      if (s < 60) return `${s}s`;
      if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`;
      return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
    },
    time(epochMs) {
      if (!epochMs) return "";
      return new Date(epochMs).toLocaleTimeString([], { hour12: false });
    },
    short(id, keep = 8) {
      if (!id) return "";
      const text = String(id);
      return text.length > keep + 1 ? `${text.slice(0, keep)}…` : text;
    },
    arnTail(arn) {
      return arn ? String(arn).split("/").pop() : "";
    },
    // A seat's connection details: where to send game traffic, the token's start, when
    // it expires; "unavailable" on a required-gateway seat that has none.
    connection(details, unavailable, now) {
      if (unavailable) return "unavailable";
      if (!details) return "";
      const where = (details.endpoints || []).map((e) => `${e.ipAddress}:${e.port}`).join(" ");
      if (!details.playerGatewayToken) return where;
      const left = details.expiresAt - now;
      const expiry = left > 0 ? `expires in ${fmt.ago(left)}` : "EXPIRED";
      return `${where} · ${fmt.short(details.playerGatewayToken, 12)} · ${expiry}`;
    },
  };

  // A metric's dimensions as text ("Route=sendMessage Code=rate_limited").
  function dimensionText(m) {
    return Object.entries(m.dimensions || {}).map(([k, v]) => `${k}=${v}`).join(" ");
  }

  function number(value) {
    if (value === null || value === undefined) return "";
    return Number.isInteger(value) ? String(value) : value.toFixed(1);
  }

  // What a series' value is: a counter's total, a gauge's last value, a histogram's count.
  function metricValue(m) {
    if (m.kind === "gauge") return number(m.last);
    if (m.kind === "histogram") return `${m.count} values`;
    return number(m.total);
  }

  // A column: label, cell text (or actions), optional class, optional data attribute.
  function col(label, text, extra = {}) {
    return { label, text, ...extra };
  }

  function el(tag, attrs = {}, text) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs)) {
      if (value !== undefined && value !== null) node.setAttribute(name, value);
    }
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // Draws `rows` into `table` with `columns`; `key(row)` identifies a row across updates.
  function drawTable(table, rows, columns, key, rowAttr) {
    const head = table.tHead;
    if (!head.rows.length) {
      const tr = head.insertRow();
      for (const c of columns) tr.appendChild(el("th", { scope: "col" }, c.label));
    }
    const body = table.tBodies[0];
    const existing = new Map();
    for (const tr of Array.from(body.rows)) existing.set(tr.dataset.key, tr);
    let previous = null;
    for (const row of rows) {
      const k = String(key(row));
      let tr = existing.get(k);
      if (tr) {
        existing.delete(k);
      } else {
        tr = el("tr", { "data-key": k });
        if (rowAttr) tr.setAttribute(rowAttr, k);
        for (const c of columns) {
          tr.appendChild(el("td", { class: c.cls || null, "data-label": c.label }));
        }
      }
      tr.row = row;
      columns.forEach((c, i) => {
        const td = tr.cells[i];
        if (c.actions) {
          drawActions(td, c.actions(row));
        } else {
          const value = c.text(row);
          const text = value === null || value === undefined ? "" : String(value);
          if (td.textContent !== text) td.textContent = text;
          if (c.data) td.dataset.value = c.data(row);
          if (c.title) td.title = c.title(row) || "";
        }
      });
      // Keep the order of `rows`.
      const want = previous ? previous.nextSibling : body.firstChild;
      if (want !== tr) body.insertBefore(tr, want);
      previous = tr;
    }
    for (const tr of existing.values()) tr.remove();
  }

  // Buttons, kept while their labels stay the same (a click is never lost to a redraw).
  function drawActions(td, actions) {
    const labels = actions.map((a) => a.label).join("|");
    if (td.dataset.labels === labels) {
      Array.from(td.children).forEach((b, i) => (b.onclick = actions[i].run));
      return;
    }
    td.dataset.labels = labels;
    td.replaceChildren(
      ...actions.map((a) => {
        const b = el("button", { type: "button", class: `small ${a.cls || ""}`, title: a.title || null }, a.label);
        b.onclick = a.run;
        return b;
      }),
    );
  }

  // The sections: columns and row keys. `act(path, body)` posts a console action.
  function sections(act) {
    return {
      players: {
        key: (p) => p.playerId,
        rowAttr: "data-player",
        columns: [
          col("Player", (p) => p.playerId, { cls: "id" }),
          col("Presence", (p) => p.presence, { cls: "presence", data: (p) => p.presence }),
          col("Activity", (p) => (p.activity ? p.activity.activity : ""), { cls: "activity", title: (p) => p.activity && p.activity.details && JSON.stringify(p.activity.details) }),
          col("Since", (p, s) => fmt.ago(s.now - (p.presence === "online" ? p.connectedAt : p.lastSeen))),
          col("Grace ends", (p, s) => (p.presence === "in grace" ? `in ${fmt.ago(p.sweepAt - s.now)}` : "")),
          col("Backlog", (p) => (p.backlog.error ? "?" : `${p.backlog.stored} / ${p.backlog.unacked}`), { cls: "backlog", title: (p) => p.backlog.error }),
          col("Placement", (p) => fmt.short(p.pendingPlacementId, 12), { title: (p) => p.pendingPlacementId }),
          col("Game", (p) => (p.gameSession ? `${fmt.arnTail(p.gameSession.gameSessionArn).slice(0, 8)} :${p.gameSession.port}` : ""), { title: (p) => p.gameSession && p.gameSession.gameSessionArn }),
          col("Connect to", (p, s) => (p.gameSession ? fmt.connection(p.gameSession.connection, p.gameSession.connectionUnavailable, s.now) : ""), {
            cls: "connection",
            title: (p) => p.gameSession && p.gameSession.connection && p.gameSession.connection.playerGatewayToken,
          }),
          col("Party", (p) => fmt.short(p.partyId, 10), { title: (p) => p.partyId }),
        ],
      },
      connections: {
        key: (c) => c.connectionId,
        rowAttr: "data-connection",
        columns: [
          col("Connection", (c) => c.connectionId, { cls: "id" }),
          col("Player", (c) => c.playerId || "?", { cls: "player" }),
          col("Age", (c) => fmt.ago(c.ageMs)),
          col("Idle", (c) => fmt.ago(c.idleMs)),
          col("From", (c) => c.sourceIp, { title: (c) => c.userAgent }),
          col("", null, {
            cls: "actions",
            actions: (c) => [
              { label: "Drop", cls: "danger", title: "close without a close frame (1006)", run: () => act(`connections/${encodeURIComponent(c.connectionId)}/drop`) },
              { label: "Close", title: "DeleteConnection (1000)", run: () => act(`connections/${encodeURIComponent(c.connectionId)}/close`) },
            ],
          }),
        ],
      },
      placements: {
        key: (p) => p.placementId,
        rowAttr: "data-placement",
        newestFirst: true,
        columns: [
          col("Placement", (p) => fmt.short(p.placementId, 13), { cls: "id", title: (p) => p.placementId }),
          col("Status", (p) => p.status, { cls: "status", data: (p) => p.status }),
          col("Players", (p) => p.playerIds.join(", ")),
          col("Game session", (p) => fmt.arnTail(p.gameSessionArn), { cls: "game-session", title: (p) => p.gameSessionArn }),
          col("Started", (p) => (p.startTime || "").slice(11, 19)),
          col("", null, {
            cls: "actions",
            actions: (p) =>
              p.status === "PENDING"
                ? [
                    { label: "Fail", cls: "danger", run: () => act(`placements/${encodeURIComponent(p.placementId)}/fail`) },
                    { label: "Slow +5s", run: () => act(`placements/${encodeURIComponent(p.placementId)}/delay`, { ms: 5000 }) },
                  ]
                : [],
          }),
        ],
      },
      processes: {
        key: (p) => p.processId,
        rowAttr: "data-process",
        columns: [
          col("pID", (p) => fmt.short(p.processId, 13), { cls: "id", title: (p) => p.processId }),
          col("Compute", (p) => p.computeId),
          col("SDK", (p) => `${p.sdkLanguage} ${p.sdkVersion}`),
          col("State", (p) => p.state + (p.connected ? "" : " (disconnected)"), { cls: "status", data: (p) => p.state, title: (p) => p.ended }),
          col("Health", (p) => (p.healthy ? "healthy" : "UNHEALTHY") + (p.terminationSent ? ", terminating" : "")),
          col("Last heartbeat", (p) => (p.lastHeartbeat || "").slice(11, 19)),
          col("Games", (p) =>
            p.gameSessions
              .map((g) => `${g.gameSessionId.slice(0, 8)} :${g.port} ${g.status} [${Object.entries(g.playerSessions).map(([k, n]) => `${n} ${k}`).join(", ")}]`)
              .join("; "),
          ),
          col("", null, {
            cls: "actions",
            actions: (p) =>
              p.state === "Terminated"
                ? []
                : [
                    { label: "Terminate", cls: "danger", title: "send TerminateProcess", run: () => act(`processes/${encodeURIComponent(p.processId)}/terminate`) },
                    { label: "Refresh", title: "send RefreshConnection (a new URL and auth token)", run: () => act(`processes/${encodeURIComponent(p.processId)}/refresh-connection`) },
                  ],
          }),
        ],
      },
      servers: {
        key: (s) => s.index,
        columns: [
          col("#", (s) => s.index),
          col("Process", (s) => s.processId, { cls: "id" }),
          col("State", (s) => s.state, { cls: "status", data: (s) => s.state }),
          col("Games hosted", (s) => s.sessionsHosted),
          col("Running", (s) => s.gameSessionArns.map(fmt.arnTail).map((id) => id.slice(0, 8)).join(", ")),
        ],
      },
      gameSessions: {
        key: (g) => g.gameSessionId,
        rowAttr: "data-game-session",
        newestFirst: true,
        columns: [
          col("Game session", (g) => g.gameSessionId, { cls: "id" }),
          col("Status", (g) => g.status, { cls: "status", data: (g) => g.status }),
          col("Players", (g) => `${g.currentPlayerSessionCount} / ${g.maximumPlayerSessionCount}`),
          col("Where", (g) => `${g.ipAddress}:${g.port}`),
          col("Process", (g) => g.processId),
          col("", null, {
            cls: "actions",
            actions: (g) => (g.status === "ACTIVE" ? [{ label: "End", cls: "danger", title: "TerminateGameSession", run: () => act(`game-sessions/${encodeURIComponent(g.gameSessionId)}/terminate`) }] : []),
          }),
        ],
      },
      playerConnections: {
        key: (c) => `${c.gameSessionArn} ${c.playerId}`,
        columns: [
          col("Player", (c) => c.playerId, { cls: "id" }),
          col("Game", (c) => fmt.arnTail(c.gameSessionArn).slice(0, 8), { title: (c) => c.gameSessionArn }),
          col("Endpoints", (c) => (c.endpoints || []).map((e) => `${e.ipAddress}:${e.port}`).join(" ")),
          col("Token", (c) => fmt.short(c.playerGatewayToken, 16) || "none (direct)", { title: (c) => c.playerGatewayToken }),
          col("Expires", (c, s) => (c.expiresAt ? (c.expiresAt > s.now ? `in ${fmt.ago(c.expiresAt - s.now)}` : "EXPIRED") : "")),
        ],
      },
      playerSessions: {
        key: (p) => p.playerSessionId,
        newestFirst: true,
        columns: [
          col("Player session", (p) => p.playerSessionId, { cls: "id" }),
          col("Player", (p) => p.playerId),
          col("Status", (p) => p.status, { cls: "status", data: (p) => p.status }),
          col("Game", (p) => fmt.arnTail(p.gameSessionArn).slice(0, 8)),
        ],
      },
      parties: {
        key: (p) => p.partyId,
        rowAttr: "data-party",
        columns: [
          col("Party", (p) => p.partyId, { cls: "id" }),
          col("Leader", (p) => p.leaderId || ""),
          col("Members", (p) => (p.members || []).map((m) => `${m.playerId} (${m.presence})`).join(", ")),
          col("Size", (p) => `${(p.members || []).length} / ${p.maxSize || "?"}`),
          col("Version", (p) => (p.error ? `error: ${p.error}` : p.version)),
        ],
      },
      friends: {
        key: (f) => f.playerId,
        rowAttr: "data-friends",
        columns: [
          col("Player", (f) => f.playerId, { cls: "id" }),
          col("Friends", (f) => (f.error ? `error: ${f.error}` : (f.friends || []).map((e) => `${e.playerId} (${[e.presence, e.activity].filter(Boolean).join(", ")})`).join(", ") + (f.more ? ", …" : ""))),
          col("Invited", (f) => (f.invited || []).map((e) => e.playerId).join(", ")),
          col("Invitations", (f) => (f.invitation || []).map((e) => e.playerId).join(", ")),
          col("Blocked", (f) => (f.blocked || []).map((e) => e.playerId).join(", ")),
        ],
      },
      metrics: {
        key: (m) => `${m.name} ${dimensionText(m)}`,
        rowAttr: "data-metric",
        columns: [
          col("Metric", (m) => m.name, { cls: "id" }),
          col("Dimensions", (m) => dimensionText(m)),
          col("Value", (m) => metricValue(m), { cls: "num" }),
          col("p50", (m) => (m.kind === "histogram" ? number(m.p50) : ""), { cls: "num" }),
          col("p99", (m) => (m.kind === "histogram" ? number(m.p99) : ""), { cls: "num" }),
          col("Unit", (m) => m.unit),
        ],
      },
      tickets: {
        key: (t) => t.ticketId,
        rowAttr: "data-ticket",
        newestFirst: true,
        columns: [
          col("Ticket", (t) => t.ticketId, { cls: "id" }),
          col("Status", (t) => t.status, { cls: "status", data: (t) => t.status }),
          col("Players", (t) => (t.players || []).map((p) => (p.team ? `${p.playerId} (${p.team})` : p.playerId)).join(", ")),
          col("Configuration", (t) => t.configuration),
          col("Last event", (t) => t.lastEvent + (t.reason ? `: ${t.reason}` : "")),
          col("Match", (t) => t.matchId || ""),
        ],
      },
    };
  }

  // Draws one section's rows into `table`; the columns see the whole state too.
  function drawSection(view, table, rows, state) {
    const list = Array.isArray(rows) ? rows.slice() : [];
    if (view.newestFirst) list.reverse();
    const columns = view.columns.map((c) => (c.text ? { ...c, text: (row) => c.text(row, state) } : c));
    drawTable(table, list, columns, view.key, view.rowAttr);
    return list.length;
  }

  window.ConsoleViews = { sections, drawSection, fmt, el, number };
})();
