export { GameSocketsClient, type Ack, type ClientOptions, type RequestRoute } from './client.js';
export { GameSocketsError, type ClientErrorCode, type StopReason } from './errors.js';
export type { ClientEvents, ConnectionState, ResumeAck } from './events.js';
export type { SocketFactory, SocketLike } from './socket.js';
export { REFRESH_RETRY_INITIAL_MS, REFRESH_RETRY_MAX_MS, refreshMarginMs } from './seat.js';
export * from './protocol.js';
