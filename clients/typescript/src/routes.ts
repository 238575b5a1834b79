import type { AckOf, BodyOf, ClientFrame } from './protocol.js';

/** The routes that answer (every one but `ping`, which is never answered). */
export type RequestRoute = Exclude<ClientFrame['route'], 'ping'>;

/** The reply to a request: the `ack` frame's fields (for a route, {@link AckOf} its type). */
export type Ack<T = Record<string, unknown>> = T & { route: string; requestId?: string | null };

/**
 * The typed requests, one method per route, over {@link Routes.request} (which
 * `GameSocketsClient` implements): each names its route's body and its ack's fields.
 */
export abstract class Routes {
  /**
   * Sends a request and resolves with its `ack`, or rejects with a `GameSocketsError`.
   */
  abstract request<R extends RequestRoute>(route: R, body?: BodyOf<R>, options?: { timeoutMs?: number }): Promise<Ack<AckOf<R>>>;

  /** `sendMessage` to players (1–100) or, with `{ partyId }`, to your party. Resolves with `queued`. */
  sendMessage(to: string[] | { partyId: string }, message: unknown): Promise<Ack<AckOf<'sendMessage'>>> {
    const body = Array.isArray(to) ? { playerIds: to, message } : { partyId: to.partyId, message };
    return this.request('sendMessage', body as BodyOf<'sendMessage'>);
  }

  /** `sessionPlacementRequest`: the result comes as a `placement` event. */
  requestPlacement(body: BodyOf<'sessionPlacementRequest'> = {}): Promise<Ack<AckOf<'sessionPlacementRequest'>>> {
    return this.request('sessionPlacementRequest', body);
  }

  cancelPlacement(placementId?: string): Promise<Ack<AckOf<'cancelPlacement'>>> {
    return this.request('cancelPlacement', placementId ? { placementId } : {});
  }

  rejoinSession(): Promise<Ack<AckOf<'rejoinSession'>>> {
    return this.request('rejoinSession', {});
  }

  /** Fresh connection details for your seat (a new player gateway token). */
  refreshConnectionDetails(): Promise<Ack<AckOf<'refreshConnectionDetails'>>> {
    return this.request('refreshConnectionDetails', {});
  }

  subscribePresence(playerIds: string[]): Promise<Ack<AckOf<'subscribePresence'>>> {
    return this.request('subscribePresence', { playerIds });
  }

  unsubscribePresence(playerIds: string[]): Promise<Ack<AckOf<'unsubscribePresence'>>> {
    return this.request('unsubscribePresence', { playerIds });
  }

  setPlacementLatencies(latencies: Record<string, number>): Promise<Ack<AckOf<'setPlacementLatencies'>>> {
    return this.request('setPlacementLatencies', { latencies });
  }

  createParty(maxSize?: number): Promise<Ack<AckOf<'createParty'>>> {
    return this.request('createParty', maxSize ? { maxSize } : {});
  }

  inviteToParty(playerId: string): Promise<Ack<AckOf<'inviteToParty'>>> {
    return this.request('inviteToParty', { playerId });
  }

  joinParty(partyId: string): Promise<Ack<AckOf<'joinParty'>>> {
    return this.request('joinParty', { partyId });
  }

  declinePartyInvite(partyId: string): Promise<Ack<AckOf<'declinePartyInvite'>>> {
    return this.request('declinePartyInvite', { partyId });
  }

  leaveParty(): Promise<Ack<AckOf<'leaveParty'>>> {
    return this.request('leaveParty', {});
  }

  kickFromParty(playerId: string): Promise<Ack<AckOf<'kickFromParty'>>> {
    return this.request('kickFromParty', { playerId });
  }

  promotePartyLeader(playerId: string): Promise<Ack<AckOf<'promotePartyLeader'>>> {
    return this.request('promotePartyLeader', { playerId });
  }

  /** A solo player's or a party leader's ticket; its states arrive as `matchmaking` events. */
  startMatchmaking(body: BodyOf<'startMatchmaking'> = {}): Promise<Ack<AckOf<'startMatchmaking'>>> {
    return this.request('startMatchmaking', body);
  }

  acceptMatch(ticketId: string, accept: boolean): Promise<Ack<AckOf<'acceptMatch'>>> {
    return this.request('acceptMatch', { ticketId, accept });
  }

  /** Your live ticket when `ticketId` is absent. */
  stopMatchmaking(ticketId?: string): Promise<Ack<AckOf<'stopMatchmaking'>>> {
    return this.request('stopMatchmaking', ticketId ? { ticketId } : {});
  }

  setMatchmakingAttributes(attributes: BodyOf<'setMatchmakingAttributes'>['attributes']): Promise<Ack<AckOf<'setMatchmakingAttributes'>>> {
    return this.request('setMatchmakingAttributes', { attributes });
  }

  /** Invites a player to be friends (or accepts their invitation): resolves with your side's `state`. */
  addFriend(playerId: string): Promise<Ack<AckOf<'addFriend'>>> {
    return this.request('addFriend', { playerId });
  }

  /** Ends a friendship, declines their invitation or withdraws yours (`state: null`). */
  removeFriend(playerId: string): Promise<Ack<AckOf<'removeFriend'>>> {
    return this.request('removeFriend', { playerId });
  }

  blockPlayer(playerId: string): Promise<Ack<AckOf<'blockPlayer'>>> {
    return this.request('blockPlayer', { playerId });
  }

  unblockPlayer(playerId: string): Promise<Ack<AckOf<'unblockPlayer'>>> {
    return this.request('unblockPlayer', { playerId });
  }

  /** A page of your relations (friends with presence); pass the previous page's `cursor` for the next. */
  listFriends(body: BodyOf<'listFriends'> = {}): Promise<Ack<AckOf<'listFriends'>>> {
    return this.request('listFriends', body);
  }

  /** What you are doing (at most 64 characters; `details` an object of at most 512 bytes), shown to friends
   * and subscribers in `presence` frames; `''` with no `details` clears it. Resolves with what was stored. */
  setActivity(activity: string, details?: BodyOf<'setActivity'>['details']): Promise<Ack<AckOf<'setActivity'>>> {
    return this.request('setActivity', details === undefined ? { activity } : { activity, details });
  }

  /** A seat in a friend's running game, answered like `rejoinSession`; refused `forbidden` (not friends),
   * `not_found` (in no game), `session_full` or `session_ended`. */
  joinFriendGame(playerId: string): Promise<Ack<AckOf<'joinFriendGame'>>> {
    return this.request('joinFriendGame', { playerId });
  }

  /** A `heartbeat` with the cursor that asks for the server time (the timer's frames ask for nothing). */
  heartbeat(): Promise<Ack<AckOf<'heartbeat'>>> {
    return this.request('heartbeat', {});
  }
}
