// Generated from protocol/schema.json by scripts/generate-types.mjs: do not edit.
// Regenerate with `npm run generate` (after regenerating the schema from the Rust types).

/**
 * `acceptMatch`: the ticket, and what was answered.
 */
export type AcceptMatchAck = {
  accept: boolean;
  ticketId: TicketId;
};

/**
 * `acceptMatch`: accept (true) or reject (false) the proposed match of a ticket.
 */
export type AcceptMatchRequestBody = {
  accept: boolean;
  ticketId: TicketId;
};

/**
 * What a player is doing (`setActivity`'s body, and its ack: what was stored).
 */
export type Activity = {
  /**
   * At most 64 characters (`"in lobby"`, `"ranked, map Dust, 3–1"`); `""` with no
   * `details` clears the activity.
   */
  activity: ActivityText;
  /**
   * A JSON object for the game's own use (a map, a score), at most 512 bytes
   * serialized.
   */
  details?: {
    [field: string]: unknown;
  } | null;
};

/**
 * What a player is doing, in the game's words (`"in lobby"`, `"ranked, map Dust, 3–1"`):
 * at most 64 characters; empty (with no `details`) clears it.
 */
export type ActivityText = string;

/**
 * One player attribute, in the four kinds FlexMatch knows (its `AttributeValue`: `N`,
 * `S`, `SL`, `SDM`). On the wire, plain JSON: a number, a string, an array of strings or
 * an object of string → number; strings (and map keys) of at most 100 characters, at most
 * 32 strings or entries.
 */
export type AttributeValue = 
  | number
  | string
  | Array<string>
  | {
    [field: string]: number;
  };

/**
 * `setMatchmakingAttributes`: the attributes stored.
 */
export type AttributesAck = {
  attributes: PlayerAttributes;
};

/**
 * `setMatchmakingAttributes`: your attributes for the party leader's ticket (`{}` clears).
 */
export type AttributesBody = {
  attributes: PlayerAttributes;
};

/**
 * `cancelPlacement`: the placement cancelled.
 */
export type CancelPlacementAck = {
  placementId: PlacementId;
};

/**
 * `cancelPlacement`: the pending placement (yours when absent).
 */
export type CancelPlacementBody = {
  placementId?: 
    | PlacementId
    | null;
};

/**
 * The `change` of a `party` frame.
 */
export type ChangeKind = "created" | "joined" | "left" | "kicked" | "promoted" | "disbanded" | "presence";

/**
 * A request: `{"route", "requestId"?, "body"?}`, one variant per route. `requestId`
 * (at most 64 characters) is echoed back on the `ack` or `error` that answers it. A body
 * a route can go without may also be absent or `null` (read as `{}`).
 */
export type ClientFrame = 
  | {
    body?: 
      | CursorBody
      | null;
    requestId?: string | null;
    route: "resume";
  }
  | {
    body?: 
      | HeartbeatBody
      | null;
    requestId?: string | null;
    route: "heartbeat";
  }
  | {
    route: "ping";
  }
  | {
    body: SendMessageBody;
    requestId?: string | null;
    route: "sendMessage";
  }
  | {
    body?: 
      | PlacementRequestBody
      | null;
    requestId?: string | null;
    route: "sessionPlacementRequest";
  }
  | {
    body?: 
      | CancelPlacementBody
      | null;
    requestId?: string | null;
    route: "cancelPlacement";
  }
  | {
    body?: 
      | EmptyBody
      | null;
    requestId?: string | null;
    route: "rejoinSession";
  }
  | {
    body?: 
      | EmptyBody
      | null;
    requestId?: string | null;
    route: "refreshConnectionDetails";
  }
  | {
    body: PlayerIdsBody;
    requestId?: string | null;
    route: "subscribePresence";
  }
  | {
    body: PlayerIdsBody;
    requestId?: string | null;
    route: "unsubscribePresence";
  }
  | {
    body: Activity;
    requestId?: string | null;
    route: "setActivity";
  }
  | {
    body: LatenciesBody;
    requestId?: string | null;
    route: "setPlacementLatencies";
  }
  | {
    body?: 
      | CreatePartyBody
      | null;
    requestId?: string | null;
    route: "createParty";
  }
  | {
    body: PlayerBody;
    requestId?: string | null;
    route: "inviteToParty";
  }
  | {
    body: PartyBody;
    requestId?: string | null;
    route: "joinParty";
  }
  | {
    body: PartyBody;
    requestId?: string | null;
    route: "declinePartyInvite";
  }
  | {
    body?: 
      | EmptyBody
      | null;
    requestId?: string | null;
    route: "leaveParty";
  }
  | {
    body: PlayerBody;
    requestId?: string | null;
    route: "kickFromParty";
  }
  | {
    body: PlayerBody;
    requestId?: string | null;
    route: "promotePartyLeader";
  }
  | {
    body?: 
      | StartMatchmakingRequestBody
      | null;
    requestId?: string | null;
    route: "startMatchmaking";
  }
  | {
    body: AcceptMatchRequestBody;
    requestId?: string | null;
    route: "acceptMatch";
  }
  | {
    body?: 
      | TicketBody
      | null;
    requestId?: string | null;
    route: "stopMatchmaking";
  }
  | {
    body: AttributesBody;
    requestId?: string | null;
    route: "setMatchmakingAttributes";
  }
  | {
    body: PlayerBody;
    requestId?: string | null;
    route: "addFriend";
  }
  | {
    body: PlayerBody;
    requestId?: string | null;
    route: "removeFriend";
  }
  | {
    body: PlayerBody;
    requestId?: string | null;
    route: "blockPlayer";
  }
  | {
    body: PlayerBody;
    requestId?: string | null;
    route: "unblockPlayer";
  }
  | {
    body?: 
      | ListFriendsBody
      | null;
    requestId?: string | null;
    route: "listFriends";
  }
  | {
    body: PlayerBody;
    requestId?: string | null;
    route: "joinFriendGame";
  };

/**
 * The name (or ARN) of one of the stack's matchmaking configurations: 1–256
 * characters. Which there are is the stack's setting (`MATCHMAKING_CONFIGURATIONS`):
 * another name is `not_found`, not malformed.
 */
export type ConfigurationName = string;

/**
 * Where to connect for a seat, as GameLift gave it for this player.
 */
export type ConnectionDetails = {
  /**
   * Behind player gateway: relays, which differ from player to player (when one stops
   * answering, use the next, and refresh: GameLift replaces unhealthy relays).
   * Without: the game server's own address.
   */
  endpoints: Array<ConnectionEndpoint>;
  /**
   * When the token expires (epoch ms): send `refreshConnectionDetails` before then
   * (the client libraries do). Absent without player gateway: nothing expires.
   */
  expiresAt?: number | null;
  /**
   * Behind player gateway: prepend it, unmodified (and unencrypted), to every UDP
   * packet sent to an endpoint. Absent without player gateway.
   */
  playerGatewayToken?: string | null;
};

/**
 * One address to send the game's UDP traffic to: a player gateway relay, or the game
 * server itself.
 */
export type ConnectionEndpoint = {
  ipAddress: string;
  port: number;
};

/**
 * `createParty`: its size (2–10, at most the stack's `PARTY_MAX_SIZE`, that when absent).
 */
export type CreatePartyBody = {
  maxSize?: 
    | PartySize
    | null;
};

/**
 * `resume` and `heartbeat`: the `seq` of the last pushed frame the client processed.
 */
export type CursorBody = {
  cursor?: 
    | Seq
    | null;
};

/**
 * Why the server closed a socket (the `disconnected` frame).
 */
export type DisconnectReason = 
  | "heartbeat_timeout"
  | "connection_lost";

/**
 * A body with no fields.
 */
export type EmptyBody = {
  [field: string]: unknown;
};

/**
 * Error codes of `error` frames.
 */
export type ErrorCode = 
  | "bad_request" | "unknown_route" | "payload_too_large" | "not_found" | "conflict" | "session_ended" | "unavailable" | "internal"
  | "forbidden"
  | "session_full"
  | "rate_limited";

/**
 * `addFriend`, `removeFriend`, `blockPlayer`, `unblockPlayer`: the relation with
 * `playerId` from your side after the request (`null`: none).
 */
export type FriendAck = {
  playerId: PlayerId;
  state?: 
    | FriendState
    | null;
};

/**
 * `listFriends`: one of your relations, with the friend's presence.
 */
export type FriendEntry = {
  /**
   * At most 64 characters (`"in lobby"`, `"ranked, map Dust, 3–1"`); `""` with no
   * `details` clears the activity.
   */
  activity?: ActivityText;
  /**
   * A JSON object for the game's own use (a map, a score), at most 512 bytes
   * serialized.
   */
  details?: {
    [field: string]: unknown;
  } | null;
  playerId: PlayerId;
  /**
   * `online` or `offline`, for friends only (absent for invitations and blocks).
   */
  presence?: 
    | PresenceStatus
    | null;
  /**
   * When the relation reached this state (ms).
   */
  since: number;
  state: FriendState;
};

/**
 * A relation as one of its two players sees it.
 */
export type FriendState = 
  | "friends"
  | "invited"
  | "invitation"
  | "blocked";

/**
 * What a `friend` frame says the relation became, from the recipient's side.
 */
export type FriendUpdate = 
  | "invited"
  | "invitation"
  | "friends"
  | "removed";

/**
 * A player's seat in a game session, as clients receive it (`placement` frames, the
 * `resume` and `rejoinSession` acks) and as the Players item keeps it (`gameSession`).
 * Clients of TLS fleets must connect to `dns_name`, not the IP. Where to send game
 * traffic is `connection` when present (behind player gateway, relays rather than the
 * game server's own address).
 */
export type GameSession = {
  /**
   * Where this player connects: player gateway relays and token, or the game server
   * itself. Absent on a seat given before connection details existed: connect to
   * `ipAddress`/`port`.
   */
  connection?: 
    | ConnectionDetails
    | null;
  /**
   * The fleet requires player gateway and this seat's details could not be had: do
   * not connect yet; send `refreshConnectionDetails` (the client libraries do, with
   * backoff). Never together with `connection`.
   */
  connectionUnavailable?: boolean;
  dnsName: string;
  gameSessionArn: string;
  ipAddress: string;
  playerSessionId: string;
  port: number;
  region: string;
};

/**
 * `heartbeat` with a `requestId`: the server's clock (ms).
 */
export type HeartbeatAck = {
  serverTime: number;
};

/**
 * `heartbeat`'s body as the server reads it: API Gateway itself, with the mapping
 * template of template.yaml's `HeartbeatIntegration`, which takes a `cursor` of at most
 * 15 digits. Only the schema uses this type; Rust writes the body as `CursorBody` (seqs
 * stay below 10^15 until the year 2286).
 */
export type HeartbeatBody = {
  /**
   * The `seq` of the last pushed frame the client processed.
   */
  cursor?: number | null;
};

/**
 * `inviteToParty`: whom, to which party, until when (ms).
 */
export type InviteToPartyAck = {
  expiresAt: number;
  partyId: PartyId;
  playerId: PlayerId;
};

/**
 * The frame a client's timer sends, and how often. A client that got no `keepAlive`
 * (a stack older than it) sends what it is configured to.
 */
export type KeepAlive = {
  /**
   * Seconds between two of the timer's frames: two per heartbeat timeout with a tenth
   * of it to spare, so one lost frame does not take the player offline, and one before
   * the idle timeout closes the socket (API Gateway's is 10 minutes: at most 540).
   */
  intervalSeconds: number;
  route: KeepAliveRoute;
};

/**
 * What the timer sends.
 */
export type KeepAliveRoute = 
  | "heartbeat"
  | "ping";

/**
 * Region → round-trip milliseconds (0–10000), at most 20 regions; a region is 1–64 of `a-z 0-9 -` (an AWS Region or a GameLift location).
 */
export type Latencies = {
  [field: string]: number;
};

/**
 * `setPlacementLatencies`: what was stored, region → whole milliseconds.
 */
export type LatenciesAck = {
  latencies: {
    [field: string]: number;
  };
};

/**
 * `setPlacementLatencies`: region → milliseconds (`{}` clears).
 */
export type LatenciesBody = {
  latencies: Latencies;
};

/**
 * `listFriends`: a page of relations by player id, and the `cursor` of the next page
 * (`null`: this was the last).
 */
export type ListFriendsAck = {
  cursor?: 
    | PlayerId
    | null;
  friends: Array<FriendEntry>;
};

/**
 * `listFriends`: only relations in `state` (every one when absent), after `cursor` (the
 * previous page's).
 */
export type ListFriendsBody = {
  cursor?: 
    | PlayerId
    | null;
  state?: 
    | FriendState
    | null;
};

/**
 * A player's seat in a game made by matchmaking: the game session, the player's own
 * player session, the match and the player's team.
 */
export type MatchedSeat = {
  /**
   * Where this player connects: player gateway relays and token, or the game server
   * itself. Absent on a seat given before connection details existed: connect to
   * `ipAddress`/`port`.
   */
  connection?: 
    | ConnectionDetails
    | null;
  /**
   * The fleet requires player gateway and this seat's details could not be had: do
   * not connect yet; send `refreshConnectionDetails` (the client libraries do, with
   * backoff). Never together with `connection`.
   */
  connectionUnavailable?: boolean;
  dnsName: string;
  gameSessionArn: string;
  ipAddress: string;
  matchId: string;
  playerSessionId: string;
  port: number;
  region: string;
  team?: string | null;
};

export type MemberView = {
  joinedAt: number;
  playerId: PlayerId;
  /**
   * `online` or `offline`.
   */
  presence: string;
};

/**
 * `createParty`, `joinParty`, `kickFromParty`, `promotePartyLeader`: the party after
 * the change.
 */
export type PartyAck = {
  party: PartyView;
};

/**
 * `joinParty`, `declinePartyInvite`: which party.
 */
export type PartyBody = {
  partyId: PartyId;
};

/**
 * A party's id: 1–128 characters of `A-Z a-z 0-9 . _ : @ -`, the player id rules. The
 * ones made here are random (v4) UUIDs; any id of that shape is accepted where one
 * comes back (`joinParty`, `sendMessage`, a stored item) and parsed there once.
 */
export type PartyId = string;

/**
 * `declinePartyInvite`, `leaveParty`: which party.
 */
export type PartyIdAck = {
  partyId: PartyId;
};

/**
 * The size `createParty` asks for: a whole number from 2 to 10. A stack allows at most
 * its `PARTY_MAX_SIZE` (8 unless set): a well-formed size above that is refused as
 * `forbidden`, not malformed.
 */
export type PartySize = number;

/**
 * A party in `party` frames and acks: `{"partyId", "leaderId", "maxSize", "members":
 * [{"playerId", "presence", "joinedAt"}], "version"}`.
 */
export type PartyView = {
  leaderId: PlayerId;
  maxSize: number;
  members: Array<MemberView>;
  partyId: PartyId;
  version: number;
};

/**
 * `sessionPlacementRequest` (and `resume`'s pending placement): the placement, still
 * `PENDING`; its result comes as a `placement` frame.
 */
export type PlacementAck = {
  placementId: PlacementId;
  status: PlacementStatus;
};

/**
 * A game session placement's id: 1–48 characters of `A-Z a-z 0-9 -`, GameLift's rule
 * for `PlacementId` (`[a-zA-Z0-9-]+`, at most 48).
 *
 * The ids this system makes ([`PlacementId::new_at`]) are time-ordered (v7) UUIDs;
 * any id of the right shape is accepted where one comes back (a client's
 * `cancelPlacement`, a GameLift event, a stored item), and parsed there once.
 */
export type PlacementId = string;

/**
 * `sessionPlacementRequest`.
 */
export type PlacementRequestBody = {
  /**
   * Region → round-trip milliseconds (0–10000), at most 20 regions.
   */
  latencies?: 
    | Latencies
    | null;
  /**
   * Handed to the game server; at most 2048 characters.
   */
  playerData?: 
    | PlayerData
    | null;
  /**
   * One of the configured queues (the first when absent; another is `not_found`).
   */
  queue?: 
    | QueueName
    | null;
};

/**
 * Where a game session placement is (shared/src/placement.rs): it moves only
 * from `PENDING` to one of the final states, once.
 */
export type PlacementStatus = "PENDING" | "FULFILLED" | "CANCELLED" | "TIMED_OUT" | "FAILED";

/**
 * A player's attributes by name: at most 32, each named by 1–64 of `A-Z a-z 0-9 _ -`.
 */
export type PlayerAttributes = {
  [field: string]: AttributeValue;
};

/**
 * `inviteToParty`, `kickFromParty`, `promotePartyLeader`, `joinFriendGame`, and the friend
 * routes: whom.
 */
export type PlayerBody = {
  playerId: PlayerId;
};

/**
 * What `sessionPlacementRequest` hands the game server (GameLift's `PlayerData`): at
 * most 2048 characters; empty is the same as none.
 */
export type PlayerData = string;

/**
 * A player's identity: 1–128 characters of `A-Z a-z 0-9 . _ : @ -`.
 *
 * It is always taken from the authorizer (a JWT `sub` or the development header),
 * never from a message body, so a client cannot act as someone else.
 */
export type PlayerId = string;

/**
 * `subscribePresence` / `unsubscribePresence`: 1–100 players (duplicates dropped).
 */
export type PlayerIdsBody = {
  playerIds: Array<PlayerId>;
};

/**
 * Where a player is in the connection lifecycle
 * (shared/src/players.rs).
 */
export type PresenceStatus = 
  | "online"
  | "disconnected"
  | "offline";

/**
 * The name (or ARN) of one of the stack's GameLift queues: 1–256 characters. Which
 * queues there are is the stack's setting (`GAME_SESSION_QUEUES`): another name is
 * `not_found`, not malformed.
 */
export type QueueName = string;

/**
 * `resume`: the session's state, after the replay of what came after the cursor.
 */
export type ResumeAck = {
  /**
   * This socket's id in the `@connections` API: what support and the operator's
   * checks (`smoke --check-assumptions`) ask API Gateway about.
   */
  connectionId: string;
  /**
   * The inbox head when the replay started: after the replay the client has
   * everything up to here (`null`: the inbox holds nothing).
   */
  cursor?: 
    | Seq
    | null;
  /**
   * The player's seat (`null`: none).
   */
  gameSession?: 
    | GameSession
    | null;
  /**
   * What the client's timer sends to keep the player online, and how often.
   */
  keepAlive: KeepAlive;
  /**
   * The live matchmaking ticket (`null`: none): its statuses are in the replay, as
   * `matchmaking` frames.
   */
  matchmaking?: 
    | TicketAck
    | null;
  /**
   * The party the player is in (`null`: none).
   */
  party?: 
    | PartyView
    | null;
  /**
   * How many frames were replayed, right before this ack.
   */
  pendingMessages: number;
  /**
   * The pending placement (`null`: none): its result comes as a `placement` frame.
   */
  placement?: 
    | PlacementAck
    | null;
  playerId: PlayerId;
  /**
   * This connection replaced a disconnected one within the grace period.
   */
  resumed: boolean;
};

/**
 * The fields of an `ack` frame, by the route it answers: what each route's reply
 * carries besides `type`, `route` and `requestId`.
 */
export type RouteAck = 
  | ResumeAck & {
    route: "resume";
  }
  | HeartbeatAck & {
    route: "heartbeat";
  }
  | SendMessageAck & {
    route: "sendMessage";
  }
  | PlacementAck & {
    route: "sessionPlacementRequest";
  }
  | CancelPlacementAck & {
    route: "cancelPlacement";
  }
  | SeatAck & {
    route: "rejoinSession";
  }
  | SeatAck & {
    route: "refreshConnectionDetails";
  }
  | SubscribePresenceAck & {
    route: "subscribePresence";
  }
  | UnsubscribePresenceAck & {
    route: "unsubscribePresence";
  }
  | Activity & {
    route: "setActivity";
  }
  | LatenciesAck & {
    route: "setPlacementLatencies";
  }
  | PartyAck & {
    route: "createParty";
  }
  | InviteToPartyAck & {
    route: "inviteToParty";
  }
  | PartyAck & {
    route: "joinParty";
  }
  | PartyIdAck & {
    route: "declinePartyInvite";
  }
  | PartyIdAck & {
    route: "leaveParty";
  }
  | PartyAck & {
    route: "kickFromParty";
  }
  | PartyAck & {
    route: "promotePartyLeader";
  }
  | StartMatchmakingAck & {
    route: "startMatchmaking";
  }
  | AcceptMatchAck & {
    route: "acceptMatch";
  }
  | TicketAck & {
    route: "stopMatchmaking";
  }
  | AttributesAck & {
    route: "setMatchmakingAttributes";
  }
  | FriendAck & {
    route: "addFriend";
  }
  | FriendAck & {
    route: "removeFriend";
  }
  | FriendAck & {
    route: "blockPlayer";
  }
  | FriendAck & {
    route: "unblockPlayer";
  }
  | ListFriendsAck & {
    route: "listFriends";
  }
  | SeatAck & {
    route: "joinFriendGame";
  };

/**
 * `rejoinSession` (the same game, a new player session) and `refreshConnectionDetails`
 * (the seat with fresh connection details).
 */
export type SeatAck = {
  gameSession: GameSession;
};

/**
 * `sendMessage`: how many recipients the message was queued for.
 */
export type SendMessageAck = {
  queued: number;
};

/**
 * `sendMessage`: to 1–100 players (duplicates dropped), or to every other member of your
 * party; the other field absent or null. Over 32 KiB serialized, `message` is refused as
 * `payload_too_large` (a size JSON Schema cannot state).
 */
export type SendMessageBody = 
  | {
    /**
     * Any JSON, at most 32 KiB serialized.
     */
    message: unknown;
    partyId?: null;
    playerIds: Array<PlayerId>;
  }
  | {
    /**
     * Any JSON, at most 32 KiB serialized.
     */
    message: unknown;
    partyId: PartyId;
    playerIds?: null;
  };

/**
 * A position in a player's inbox. Every frame pushed to a player (a message, a placement
 * result, a presence change) is appended to their inbox at the next `Seq` and carries it
 * as `"seq"`; a client that reports the last one it processed (`resume {"cursor"}`) gets
 * everything after it again. Within an epoch of an inbox the numbers are consecutive;
 * an inbox whose items all expired starts a new epoch at a time-derived number above
 * every earlier one ([`Seq::epoch_start`]), so a `Seq` only ever grows for a player.
 * Clients treat it as an opaque, increasing number (at most 2^53 − 1, exact in every
 * JSON implementation).
 */
export type Seq = number;

/**
 * Every frame the server sends; always a JSON object with `"type"`. A frame pushed
 * through the inbox (marked `#[schemars(transform = pushed)]`) also carries `seq`.
 */
export type ServerFrame = 
  | {
    requestId?: string | null;
    route: string;
    type: "ack";
    [field: string]: unknown;
  }
  | {
    requestId?: string | null;
    route?: string | null;
    type: "error";
  } & (
    | {
      code: "bad_request";
      /**
       * The backend API: the request's field at fault (`body` for the body as a whole,
       * `path` or a path parameter for the path).
       */
      field?: string | null;
      /**
       * What went wrong, and what (not) to do about it, for a person.
       */
      message: string;
    }
    | {
      /**
       * The backend API: the one method the path serves (also the `Allow` header).
       */
      allow?: string | null;
      code: "unknown_route";
      /**
       * What went wrong, and what (not) to do about it, for a person.
       */
      message: string;
    }
    | {
      code: "payload_too_large";
      /**
       * The backend API: the request's field at fault (`body` for the body as a whole,
       * `path` or a path parameter for the path).
       */
      field?: string | null;
      /**
       * What went wrong, and what (not) to do about it, for a person.
       */
      message: string;
    }
    | {
      code: "not_found";
      /**
       * What went wrong, and what (not) to do about it, for a person.
       */
      message: string;
      /**
       * The backend API: the party no one is in.
       */
      partyId?: 
        | PartyId
        | null;
      /**
       * The backend API: the player no one is.
       */
      playerId?: 
        | PlayerId
        | null;
      /**
       * The recipients no player has (`sendMessage`, the backend API's messages): nothing
       * was sent.
       */
      playerIds?: Array<PlayerId> | null;
      /**
       * The backend API: the presence of a player with no open connection.
       */
      presence?: 
        | PresenceStatus
        | null;
      /**
       * The ticket that is over (`stopMatchmaking`), or the matchmaking ticket that
       * `cancelPlacement` found pending.
       */
      ticketId?: 
        | TicketId
        | null;
    }
    | {
      code: "conflict";
      /**
       * The backend API: the game session the player is seated in instead (`null`:
       * none).
       */
      currentGameSessionId?: string | null;
      /**
       * What went wrong, and what (not) to do about it, for a person.
       */
      message: string;
      /**
       * The placement already pending.
       */
      placementId?: 
        | PlacementId
        | null;
      /**
       * Whose pending request it is, when it is another player's or a party's
       * reservation found it.
       */
      playerId?: 
        | PlayerId
        | null;
      /**
       * The status of the ticket not awaiting an answer.
       */
      status?: 
        | TicketStatus
        | null;
      /**
       * The live matchmaking ticket already pending, or the ticket not awaiting an answer
       * (`acceptMatch`).
       */
      ticketId?: 
        | TicketId
        | null;
    }
    | {
      code: "forbidden";
      /**
       * What went wrong, and what (not) to do about it, for a person.
       */
      message: string;
      /**
       * `joinFriendGame`: the player whose game the caller may not join (not a friend).
       */
      playerId?: 
        | PlayerId
        | null;
    }
    | {
      code: "session_ended";
      /**
       * The game session that ended (or is full).
       */
      gameSessionArn?: string | null;
      /**
       * What went wrong, and what (not) to do about it, for a person.
       */
      message: string;
      /**
       * `joinFriendGame`: the friend whose game it is.
       */
      playerId?: 
        | PlayerId
        | null;
    }
    | {
      code: "session_full";
      /**
       * The game session that ended (or is full).
       */
      gameSessionArn?: string | null;
      /**
       * What went wrong, and what (not) to do about it, for a person.
       */
      message: string;
      /**
       * `joinFriendGame`: the friend whose game it is.
       */
      playerId?: 
        | PlayerId
        | null;
    }
    | {
      code: "rate_limited";
      /**
       * What went wrong, and what (not) to do about it, for a person.
       */
      message: string;
      /**
       * Retry after this many milliseconds; nothing was done.
       */
      retryAfterMs: number;
    }
    | {
      code: "unavailable";
      /**
       * What went wrong, and what (not) to do about it, for a person.
       */
      message: string;
    }
    | {
      code: "internal";
      /**
       * What went wrong, and what (not) to do about it, for a person.
       */
      message: string;
    })
  | {
    /**
     * Sent by a game server or service through the backend API (`from` is then
     * `system` or the service's name, never a player's).
     */
    backend?: boolean;
    from: string;
    message: unknown;
    messageId: string;
    partyId?: 
      | PartyId
      | null;
    sentAt: number;
    /**
     * This frame's position in your inbox: send the last one you processed as `resume`'s `cursor`.
     */
    seq: Seq;
    type: "message";
  }
  | {
    gameSession?: 
      | GameSession
      | null;
    placementId: PlacementId;
    /**
     * This frame's position in your inbox: send the last one you processed as `resume`'s `cursor`.
     */
    seq: Seq;
    status: PlacementStatus;
    type: "placement";
  }
  | {
    /**
     * REQUIRES_ACCEPTANCE: seconds left to `acceptMatch`.
     */
    acceptanceTimeout?: number | null;
    /**
     * COMPLETED: this player's own seat in the match's game session.
     */
    gameSession?: 
      | MatchedSeat
      | null;
    /**
     * REQUIRES_ACCEPTANCE: the other players of the proposed match.
     */
    players?: Array<PlayerId>;
    /**
     * FAILED, TIMED_OUT, CANCELLED: why, as GameLift said it.
     */
    reason?: string | null;
    /**
     * This frame's position in your inbox: send the last one you processed as `resume`'s `cursor`.
     */
    seq: Seq;
    status: TicketStatus;
    ticketId: TicketId;
    type: "matchmaking";
  }
  | {
    /**
     * At most 64 characters (`"in lobby"`, `"ranked, map Dust, 3–1"`); `""` with no
     * `details` clears the activity.
     */
    activity?: ActivityText;
    at: number;
    /**
     * A JSON object for the game's own use (a map, a score), at most 512 bytes
     * serialized.
     */
    details?: {
      [field: string]: unknown;
    } | null;
    playerId: string;
    /**
     * This frame's position in your inbox: send the last one you processed as `resume`'s `cursor`.
     */
    seq: Seq;
    status: string;
    type: "presence";
  }
  | {
    change: ChangeKind;
    party: PartyView;
    playerId: PlayerId;
    /**
     * This frame's position in your inbox: send the last one you processed as `resume`'s `cursor`.
     */
    seq: Seq;
    type: "party";
  }
  | {
    expiresAt: number;
    from: PlayerId;
    partyId: PartyId;
    /**
     * This frame's position in your inbox: send the last one you processed as `resume`'s `cursor`.
     */
    seq: Seq;
    type: "party_invite";
  }
  | {
    partyId: PartyId;
    playerId: PlayerId;
    /**
     * This frame's position in your inbox: send the last one you processed as `resume`'s `cursor`.
     */
    seq: Seq;
    type: "party_invite_declined";
  }
  | {
    playerId: PlayerId;
    /**
     * This frame's position in your inbox: send the last one you processed as `resume`'s `cursor`.
     */
    seq: Seq;
    state: FriendUpdate;
    type: "friend";
  }
  | {
    type: "session_replaced";
  }
  | {
    reason: DisconnectReason;
    type: "disconnected";
  }
  | {
    connectionId: string;
    reason: string;
    /**
     * This frame's position in your inbox: send the last one you processed as `resume`'s `cursor`.
     */
    seq: Seq;
    type: "disconnected_by_server";
  };

/**
 * `startMatchmaking`: the ticket, `QUEUED`; its statuses come as `matchmaking` frames.
 */
export type StartMatchmakingAck = {
  status: TicketStatus;
  ticketId: TicketId;
};

/**
 * `startMatchmaking`: a solo player's or a party leader's ticket (the leader's carries
 * every member).
 */
export type StartMatchmakingRequestBody = {
  /**
   * At most 32: number, string, list of strings or map of string → number.
   */
  attributes?: 
    | PlayerAttributes
    | null;
  /**
   * One of the stack's matchmaking configurations (its default when absent; another
   * is `not_found`).
   */
  configuration?: 
    | ConfigurationName
    | null;
  /**
   * Region → round-trip milliseconds (0–10000), at most 20 regions.
   */
  latencies?: 
    | Latencies
    | null;
};

/**
 * `subscribePresence`: each player's status now (`online` or `offline`), in the
 * order the request named them.
 */
export type SubscribePresenceAck = {
  presence: {
    [field: string]: PresenceStatus;
  };
};

/**
 * `stopMatchmaking` (the ticket stopped) and `resume`'s live ticket.
 */
export type TicketAck = {
  ticketId: TicketId;
};

/**
 * `stopMatchmaking`: the ticket (your live one when absent).
 */
export type TicketBody = {
  ticketId?: 
    | TicketId
    | null;
};

/**
 * A matchmaking ticket's id: 1–128 characters of `A-Z a-z 0-9 - .` (GameLift's
 * `TicketId` pattern). The ids this system makes ([`TicketId::new_at`]) are
 * `mm-` and a time-ordered (v7) UUID, chosen by us so that the ticket is recorded
 * before GameLift is asked (its first event may arrive before StartMatchmaking answers).
 */
export type TicketId = string;

/**
 * A ticket's status, as the client sees it (GameLift's `MatchmakingTicket` statuses).
 */
export type TicketStatus = 
  | "SEARCHING" | "COMPLETED" | "TIMED_OUT" | "CANCELLED" | "FAILED"
  | "QUEUED"
  | "REQUIRES_ACCEPTANCE"
  | "PLACING";

/**
 * `unsubscribePresence`: how many players it named.
 */
export type UnsubscribePresenceAck = {
  unsubscribed: number;
};

/** A server frame of the given `type`. */
export type ServerFrameOf<T extends ServerFrame['type']> = Extract<ServerFrame, { type: T }>;
/** The body of a request to the given `route`. */
export type BodyOf<R extends ClientFrame['route']> = Extract<ClientFrame, { route: R }> extends { body?: infer B } ? B : never;
/** An `error` frame: a union keyed by `code`, each with the fields of its code. */
export type ErrorFrame = ServerFrameOf<'error'>;
/** An `error` frame of the given `code`, with that code's fields. */
export type ErrorOf<C extends ErrorFrame['code']> = Extract<ErrorFrame, { code: C }>;
/** The fields of the `ack` answering a request to the given `route`. */
export type AckOf<R extends RouteAck['route']> = Omit<Extract<RouteAck, { route: R }>, 'route'>;
/** Every route a client may send. */
export const ROUTES = ["resume","heartbeat","ping","sendMessage","sessionPlacementRequest","cancelPlacement","rejoinSession","refreshConnectionDetails","subscribePresence","unsubscribePresence","setActivity","setPlacementLatencies","createParty","inviteToParty","joinParty","declinePartyInvite","leaveParty","kickFromParty","promotePartyLeader","startMatchmaking","acceptMatch","stopMatchmaking","setMatchmakingAttributes","addFriend","removeFriend","blockPlayer","unblockPlayer","listFriends","joinFriendGame"] as const;
/** Every error code of `error` frames. */
export const ERROR_CODES = ["bad_request","unknown_route","payload_too_large","not_found","conflict","session_ended","unavailable","internal","forbidden","session_full","rate_limited"] as const;
