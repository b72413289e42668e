/**
 * Joins the receptionist into a LiveKit room and talks with the first participant who publishes audio.
 *   LIVEKIT_URL=wss://... LIVEKIT_API_KEY=... LIVEKIT_API_SECRET=... npx tsx examples/livekit-room.ts ROOM
 * A `traceparent` attribute on the caller's participant makes the call part of the caller's trace.
 */
import { createEmbeddedAgentStack } from 'shoal/agent';
import { createAgentToken, runAgentInRoom } from 'shoal/transports';
import { createDialogue } from 'shoal/agents';

const { LIVEKIT_URL: url, LIVEKIT_API_KEY: apiKey, LIVEKIT_API_SECRET: apiSecret } = process.env;
if (!url || !apiKey || !apiSecret) {
  console.error('Set LIVEKIT_URL, LIVEKIT_API_KEY and LIVEKIT_API_SECRET (a LiveKit server or cloud project).');
  process.exit(2);
}
const room = process.argv[2] ?? 'shoal-demo';

const stack = await createEmbeddedAgentStack({ mode: 'low-latency' });
try {
  const token = await createAgentToken({ apiKey, apiSecret, room, identity: 'shoal-agent' });
  console.log(`joining room ${room} at ${url}`);
  const summary = await runAgentInRoom(stack.agentFor(createDialogue('receptionist')), { url, token });
  console.log(`call ended after ${summary.turns.length} turns: ${summary.reason}`);
} finally {
  await stack.close();
}
