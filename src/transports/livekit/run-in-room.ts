import type { SessionSummary, VoiceAgent } from '../../agent/index.js';
import { LiveKitTransport } from './livekit-transport.js';
import { connectRoom, type ConnectRoomOptions } from './rtc-room-link.js';

/** Joins a LiveKit room as the agent, talks with the caller until one side hangs up, then leaves the room. */
export async function runAgentInRoom(agent: VoiceAgent, options: ConnectRoomOptions): Promise<SessionSummary> {
  const link = await connectRoom(options);
  const session = agent.handle(new LiveKitTransport(link));
  try {
    return await session.summary;
  } finally {
    await link.disconnect();
  }
}
