export type { RoomLink } from './room-link.js';
export { connectRoom, defaults as liveKitDefaults, type ConnectRoomOptions } from './rtc-room-link.js';
export { LiveKitTransport } from './livekit-transport.js';
export { createAgentToken, type AgentTokenOptions } from './token.js';
export { runAgentInRoom } from './run-in-room.js';
export * from './worker/index.js';
