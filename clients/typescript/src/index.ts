export { GameSocketsClient } from './client.js';
export type { ClientOptions } from './options.js';
export type { Ack, RequestRoute } from './routes.js';
export { GameSocketsError, type ClientErrorCode, type StopReason } from './errors.js';
export type { ClientEvents, ConnectionState, ResumeAck } from './events.js';
export type { SocketFactory, SocketLike } from './socket.js';
export { REFRESH_RETRY_INITIAL_MS, REFRESH_RETRY_MAX_MS, refreshMarginMs } from './seat.js';
export * from './protocol.js';
