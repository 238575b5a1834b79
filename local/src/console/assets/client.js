// A minimal player client for the console: one WebSocket per player, frames logged,
// any route sent with a form. (Game code should use a real client; this is for poking.)
(() => {
  "use strict";

  const ROUTES = {
    resume: {},
    heartbeat: {},
    sendMessage: { playerIds: ["alice"], message: { text: "hi" } },
    sessionPlacementRequest: { latencies: { "us-east-1": 40 } },
    setPlacementLatencies: { latencies: { "us-east-1": 40 } },
    cancelPlacement: {},
    rejoinSession: {},
    refreshConnectionDetails: {},
    subscribePresence: { playerIds: ["alice"] },
    unsubscribePresence: { playerIds: ["alice"] },
    createParty: { maxSize: 4 },
    inviteToParty: { playerId: "alice" },
    joinParty: { partyId: "" },
    declinePartyInvite: { partyId: "" },
    leaveParty: {},
    kickFromParty: { playerId: "" },
    promotePartyLeader: { playerId: "" },
  };

  class PlayerSocket {
    constructor(url, playerId, onEvent) {
      this.playerId = playerId;
      this.onEvent = onEvent;
      this.requests = 0;
      this.heartbeat = null;
      this.ws = new WebSocket(url);
      this.ws.addEventListener("open", () => onEvent("open", "socket open"));
      this.ws.addEventListener("message", (e) => {
        onEvent("in", typeof e.data === "string" ? e.data : "(binary frame)");
      });
      this.ws.addEventListener("close", (e) => {
        this.stopHeartbeats();
        onEvent("close", `closed ${e.code}${e.reason ? " " + e.reason : ""}`);
      });
      // A refused upgrade (401/403) shows as error then close 1006: say why it may be.
      this.ws.addEventListener("error", () => onEvent("error", "socket error (refused or lost)"));
    }

    get open() {
      return this.ws.readyState === WebSocket.OPEN;
    }

    send(route, body, requestId) {
      const frame = { route };
      const id = requestId || `c${++this.requests}`;
      frame.requestId = id;
      // An empty body is left out, as the README's examples do.
      if (body !== null && typeof body === "object" && Object.keys(body).length > 0) {
        frame.body = body;
      }
      const text = JSON.stringify(frame);
      this.ws.send(text);
      this.onEvent("out", text);
    }

    startHeartbeats(everyMs) {
      this.stopHeartbeats();
      // Without requestId: not answered (the quiet way to send it).
      this.heartbeat = setInterval(() => {
        if (this.open) this.ws.send('{"route":"heartbeat"}');
      }, everyMs);
    }

    stopHeartbeats() {
      if (this.heartbeat) clearInterval(this.heartbeat);
      this.heartbeat = null;
    }

    close() {
      this.stopHeartbeats();
      this.ws.close(1000, "closed from the console");
    }
  }

  // The WebSocket URL of this stack for a player (header mode) or a token (JWT mode).
  function socketUrl(path, playerId, token) {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const query = token ? `token=${encodeURIComponent(token)}` : `playerId=${encodeURIComponent(playerId)}`;
    return `${scheme}//${location.host}${path}?${query}`;
  }

  window.ConsoleClient = { ROUTES, PlayerSocket, socketUrl };
})();
