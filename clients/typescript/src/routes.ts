import type { BodyOf, ClientFrame, GameSession, PartyView } from './protocol.js';

/** The routes that answer (every one but `ping`, which is never answered). */
export type RequestRoute = Exclude<ClientFrame['route'], 'ping'>;

/** The reply to a request: the `ack` frame's fields. */
export type Ack<T = Record<string, unknown>> = T & { route: string; requestId?: string | null };

/**
 * The typed requests, one method per route, over {@link Routes.request} (which
 * `GameSocketsClient` implements): each names its route's body and its ack's fields.
 */
export abstract class Routes {
  /**
   * Sends a request and resolves with its `ack`, or rejects with a `GameSocketsError`.
   */
  abstract request<R extends RequestRoute>(route: R, body?: BodyOf<R>, options?: { timeoutMs?: number }): Promise<Ack>;

  /** `sendMessage` to players (1–100) or, with `{ partyId }`, to your party. Resolves with `queued`. */
  sendMessage(to: string[] | { partyId: string }, message: unknown): Promise<Ack<{ queued: number }>> {
    const body = Array.isArray(to) ? { playerIds: to, message } : { partyId: to.partyId, message };
    return this.request('sendMessage', body as BodyOf<'sendMessage'>) as Promise<Ack<{ queued: number }>>;
  }

  /** `sessionPlacementRequest`: the result comes as a `placement` event. */
  requestPlacement(body: BodyOf<'sessionPlacementRequest'> = {}): Promise<Ack<{ placementId: string; status: 'PENDING' }>> {
    return this.request('sessionPlacementRequest', body) as Promise<Ack<{ placementId: string; status: 'PENDING' }>>;
  }

  cancelPlacement(placementId?: string): Promise<Ack<{ placementId: string }>> {
    return this.request('cancelPlacement', placementId ? { placementId } : {}) as Promise<Ack<{ placementId: string }>>;
  }

  rejoinSession(): Promise<Ack<{ gameSession: GameSession }>> {
    return this.request('rejoinSession', {}) as Promise<Ack<{ gameSession: GameSession }>>;
  }

  /** Fresh connection details for your seat (a new player gateway token). */
  refreshConnectionDetails(): Promise<Ack<{ gameSession: GameSession }>> {
    return this.request('refreshConnectionDetails', {}) as Promise<Ack<{ gameSession: GameSession }>>;
  }

  subscribePresence(playerIds: string[]): Promise<Ack<{ presence: Record<string, string> }>> {
    return this.request('subscribePresence', { playerIds }) as Promise<Ack<{ presence: Record<string, string> }>>;
  }

  unsubscribePresence(playerIds: string[]): Promise<Ack> {
    return this.request('unsubscribePresence', { playerIds });
  }

  setPlacementLatencies(latencies: Record<string, number>): Promise<Ack<{ latencies: Record<string, number> }>> {
    return this.request('setPlacementLatencies', { latencies }) as Promise<Ack<{ latencies: Record<string, number> }>>;
  }

  createParty(maxSize?: number): Promise<Ack<{ party: PartyView }>> {
    return this.request('createParty', maxSize ? { maxSize } : {}) as Promise<Ack<{ party: PartyView }>>;
  }

  inviteToParty(playerId: string): Promise<Ack<{ partyId: string; playerId: string; expiresAt: number }>> {
    return this.request('inviteToParty', { playerId }) as Promise<Ack<{ partyId: string; playerId: string; expiresAt: number }>>;
  }

  joinParty(partyId: string): Promise<Ack<{ party: PartyView }>> {
    return this.request('joinParty', { partyId }) as Promise<Ack<{ party: PartyView }>>;
  }

  declinePartyInvite(partyId: string): Promise<Ack<{ partyId: string }>> {
    return this.request('declinePartyInvite', { partyId }) as Promise<Ack<{ partyId: string }>>;
  }

  leaveParty(): Promise<Ack<{ partyId: string }>> {
    return this.request('leaveParty', {}) as Promise<Ack<{ partyId: string }>>;
  }

  kickFromParty(playerId: string): Promise<Ack<{ party: PartyView }>> {
    return this.request('kickFromParty', { playerId }) as Promise<Ack<{ party: PartyView }>>;
  }

  promotePartyLeader(playerId: string): Promise<Ack<{ party: PartyView }>> {
    return this.request('promotePartyLeader', { playerId }) as Promise<Ack<{ party: PartyView }>>;
  }

  /** A solo player's or a party leader's ticket; its states arrive as `matchmaking` events. */
  startMatchmaking(body: BodyOf<'startMatchmaking'> = {}): Promise<Ack<{ ticketId: string; status: 'QUEUED' }>> {
    return this.request('startMatchmaking', body) as Promise<Ack<{ ticketId: string; status: 'QUEUED' }>>;
  }

  acceptMatch(ticketId: string, accept: boolean): Promise<Ack<{ ticketId: string; accept: boolean }>> {
    return this.request('acceptMatch', { ticketId, accept }) as Promise<Ack<{ ticketId: string; accept: boolean }>>;
  }

  /** Your live ticket when `ticketId` is absent. */
  stopMatchmaking(ticketId?: string): Promise<Ack<{ ticketId: string }>> {
    return this.request('stopMatchmaking', ticketId ? { ticketId } : {}) as Promise<Ack<{ ticketId: string }>>;
  }

  setMatchmakingAttributes(attributes: BodyOf<'setMatchmakingAttributes'>['attributes']): Promise<Ack> {
    return this.request('setMatchmakingAttributes', { attributes });
  }

  /** A `heartbeat` with the cursor that asks for the server time (the timer's frames ask for nothing). */
  heartbeat(): Promise<Ack<{ serverTime: number }>> {
    return this.request('heartbeat', {}) as Promise<Ack<{ serverTime: number }>>;
  }
}
