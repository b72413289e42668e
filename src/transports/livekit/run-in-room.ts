import { Job, Room } from '@livekit/protocol';
import type { SessionSummary, VoiceAgent } from '../../agent/index.js';
import { CallJob, type CallJobOptions } from './call-job.js';
import { connectRoom, type ConnectRoomOptions } from './rtc-room-link.js';

/** No caller joined the room before the job gave up waiting. */
export class NoCallerError extends Error {
  override readonly name = 'NoCallerError';
}

/**
 * Joins a LiveKit room as the agent with a token of your own (no dispatch), waits for the caller, talks
 * with them until one side hangs up, then leaves the room. For many rooms, run `shoal livekit` instead.
 */
export async function runAgentInRoom(
  agent: VoiceAgent,
  options: ConnectRoomOptions & Omit<CallJobOptions, 'agent' | 'connect'>,
): Promise<SessionSummary> {
  let summary: Promise<SessionSummary> | undefined;
  const job = new CallJob(
    { id: 'local', job: new Job({ id: 'local', room: new Room({ name: '' }) }), url: options.url, token: options.token, identity: '' },
    {
      ...options,
      agent,
      connect: (joining) => connectRoom({ ...options, ...joining, caller: options.caller ?? (options.callerIdentity ? { identity: options.callerIdentity } : undefined) }),
      onCall: (call) => {
        summary = call.session.summary;
        options.onCall?.(call);
      },
    },
  );
  const outcome = await job.ended;
  if (outcome.error) throw new Error(outcome.error);
  if (!summary) throw new NoCallerError('no caller joined the room');
  return summary;
}
