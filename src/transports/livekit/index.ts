export type { RoomLink } from './room-link.js';
export { connectRoom, type ConnectRoomOptions } from './rtc-room-link.js';
export { LiveKitTransport } from './livekit-transport.js';
export { createAgentToken, type AgentTokenOptions } from './token.js';
