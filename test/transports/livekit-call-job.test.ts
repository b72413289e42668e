import { describe, expect, it, vi } from 'vitest';
import { Job, Room } from '@livekit/protocol';
import { from } from 'rxjs';
import { VoiceAgent, type AgentEvent, type CallSession, type Dialogue, type DialogueOutput, type SpeechToText } from '../../src/agent/index.js';
import { createFrame } from '../../src/audio/frame.js';
import { CallControl, CallJob, liveKitNames, type AssignedJob, type CallJobOptions } from '../../src/transports/livekit/index.js';
import { AmplitudeStt, callerTrack, EnergyVad, FixedDialogue, LONG_REPLY, ToneTts } from '../support/agent-doubles.js';
import { RoomDouble, ServerApiDouble } from '../support/livekit-room-double.js';

const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
const traceparent = `00-${traceId}-00f067aa0ba902b7-01`;

function assigned(room: string): AssignedJob {
  return { id: 'AJ_1', job: new Job({ id: 'AJ_1', room: new Room({ name: room }) }), url: 'wss://lk.test', token: 'join-token', identity: 'agent-AJ_1' };
}

function agentWith(dialogue: Dialogue): VoiceAgent {
  return new VoiceAgent({ dialogue, stt: new AmplitudeStt(), tts: new ToneTts(), vad: () => new EnergyVad(), mode: 'low-latency', userSilenceTimeoutMs: 60_000 });
}

function startJob(room: RoomDouble, options: Partial<CallJobOptions> & Pick<CallJobOptions, 'agent'>) {
  const sessions: CallSession[] = [];
  const events: AgentEvent[] = [];
  room.autoDrain = true;
  const job = new CallJob(assigned(room.roomName), {
    connect: async () => room,
    conventions: { agentTranscriptIntervalMs: 50 },
    traceWaitMs: 300,
    onCall: ({ session }) => {
      sessions.push(session);
      session.events$.subscribe((event) => events.push(event));
    },
    ...options,
  });
  return { job, sessions, events };
}

/** The caller says "hello there" (the recognizer double's words for amplitude 5000), then is silent. */
function callerSays(room: RoomDouble): void {
  const { samples } = callerTrack(1600, [{ atMs: 100, ms: 700, amplitude: 5000 }]);
  for (let i = 0; i < samples.length; i += 320) room.callerAudio.next(createFrame(samples.slice(i, i + 320), 16000));
}

const states = (room: RoomDouble) => room.agentAttributes.map((a) => a[liveKitNames.agentState]);

describe('a LiveKit job: one call in one room', () => {
  it('waits for the caller before greeting, then greets once they are there', async () => {
    const room = new RoomDouble('lobby');
    const { job, sessions, events } = startJob(room, { agent: agentWith(new FixedDialogue('fine', 'Hello caller')) });
    await job.joined;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(sessions).toHaveLength(0);
    expect(room.published).toHaveLength(0);
    expect(states(room)).toEqual(['initializing']);

    room.join({ identity: 'alice', attributes: { traceparent } });
    await vi.waitFor(() => expect(events.some((e) => e.type === 'agent-stopped-speaking')).toBe(true), { timeout: 5000 });
    expect(room.published.length).toBeGreaterThan(0);
    expect(states(room)).toEqual(['initializing', 'listening', 'speaking', 'listening']);
    room.leave();
    expect(await job.ended).toEqual({});
    expect(room.disconnected).toBe(true);
  });

  it.each([
    ['sip', true],
    ['standard', false],
  ] as const)('tells the call recognizer whether a %s caller is telephone audio', async (kind, telephoneBand) => {
    const room = new RoomDouble();
    const told: boolean[] = [];
    const amplitude = new AmplitudeStt();
    const stt: SpeechToText = {
      transcribe: (utterance$, work) => amplitude.transcribe(utterance$, work),
      forCall: (call) => {
        told.push(call!.telephoneBand!());
        return { transcribe: (utterance$, work) => amplitude.transcribe(utterance$, work), release: () => undefined };
      },
    };
    const agent = new VoiceAgent({ dialogue: new FixedDialogue('fine'), stt, tts: new ToneTts(), vad: () => new EnergyVad(), mode: 'low-latency', userSilenceTimeoutMs: 60_000 });
    const { job, sessions } = startJob(room, { agent });
    await job.joined;
    room.join({ identity: 'caller', kind });
    await vi.waitFor(() => expect(sessions).toHaveLength(1));
    expect(told).toEqual([telephoneBand]);
    room.leave();
    await job.ended;
  });

  it("takes the call's trace from a traceparent attribute the caller sets after joining", async () => {
    const room = new RoomDouble();
    const { job, sessions } = startJob(room, { agent: agentWith(new FixedDialogue('fine')) });
    await job.joined;
    room.join({ identity: 'bob' });
    setTimeout(() => room.setCallerAttributes({ traceparent }), 50);
    await vi.waitFor(() => expect(sessions).toHaveLength(1));
    expect(sessions[0]!.traceId).toBe(traceId);
    room.leave();
    await job.ended;
  });

  it('starts the call without a trace attribute after the trace wait', async () => {
    const room = new RoomDouble();
    const { job, sessions } = startJob(room, { agent: agentWith(new FixedDialogue('fine')), traceWaitMs: 50 });
    room.join({ identity: 'carol' });
    await vi.waitFor(() => expect(sessions).toHaveLength(1));
    expect(sessions[0]!.traceId).not.toBe(traceId);
    room.leave();
    await job.ended;
  });

  it('transcribes both sides on lk.transcription: caller interim and final, agent words as played', async () => {
    const room = new RoomDouble('talk');
    const { job, events } = startJob(room, { agent: agentWith(new FixedDialogue('nice to meet you')) });
    room.join({ identity: 'dave', attributes: { traceparent } });
    await vi.waitFor(() => expect(states(room)).toContain('listening'));
    callerSays(room);
    await vi.waitFor(() => expect(events.some((e) => e.type === 'turn-metrics')).toBe(true), { timeout: 8000 });
    await vi.waitFor(() => expect(room.streams.filter((s) => s.closed)).toHaveLength(room.streams.length));

    const caller = room.streams.filter((s) => s.senderIdentity === 'dave');
    expect(caller.length).toBeGreaterThanOrEqual(2);
    for (const stream of caller) {
      expect(stream.topic).toBe('lk.transcription');
      expect(stream.attributes[liveKitNames.transcribedTrackId]).toBe('TR_caller_mic');
      expect(stream.attributes[liveKitNames.segmentId]).toBe(caller[0]!.attributes[liveKitNames.segmentId]);
    }
    expect(caller.map((s) => s.attributes[liveKitNames.transcriptionFinal])).toEqual([...caller.slice(1).map(() => 'false'), 'true']);
    expect(caller.at(-1)!.chunks.join('')).toBe('hello there');

    const agent = room.streams.filter((s) => s.senderIdentity === 'agent-AJ_1');
    expect(agent).toHaveLength(1);
    expect(agent[0]!.attributes).toMatchObject({ [liveKitNames.transcribedTrackId]: 'TR_agent_voice', [liveKitNames.transcriptionFinal]: 'false' });
    expect(agent[0]!.chunks.length).toBeGreaterThan(1); // written as played, not at once
    expect(agent[0]!.chunks.join('')).toBe('nice to meet you');
    expect(states(room)).toEqual(['initializing', 'listening', 'thinking', 'speaking', 'listening']);
    room.leave();
    await job.ended;
  });

  it("shows only the words the caller heard of an interrupted reply, and keeps the call through a room reconnect", async () => {
    const room = new RoomDouble('barge');
    const lines: string[] = [];
    const { job, events } = startJob(room, { agent: agentWith(new FixedDialogue('fine', LONG_REPLY)), log: (line) => lines.push(line) });
    room.join({ identity: 'hal', attributes: { traceparent } });
    await vi.waitFor(() => expect(states(room)).toContain('speaking'));
    room.reconnecting.next(true);
    room.reconnecting.next(false);
    await new Promise((resolve) => setTimeout(resolve, 700));
    const { samples } = callerTrack(1400, [{ atMs: 0, ms: 900, amplitude: 8000 }]);
    for (let i = 0; i < samples.length; i += 320) room.callerAudio.next(createFrame(samples.slice(i, i + 320), 16000));
    const interrupted = await vi.waitFor(() => {
      const report = events.find((e) => e.type === 'turn-metrics');
      expect(report).toBeDefined();
      return report as Extract<AgentEvent, { type: 'turn-metrics' }>;
    }, { timeout: 8000 });
    await vi.waitFor(() => expect(room.streams.find((s) => s.senderIdentity === 'agent-AJ_1')?.closed).toBe(true));
    const spoken = room.streams.find((s) => s.senderIdentity === 'agent-AJ_1')!.chunks.join('');
    expect(interrupted.report.interrupted).toBe(true);
    expect(spoken).toBe(interrupted.report.agent_text);
    expect(spoken.length).toBeGreaterThan(0);
    expect(LONG_REPLY.startsWith(spoken)).toBe(true);
    expect(spoken.length).toBeLessThan(LONG_REPLY.length);
    expect(lines).toEqual(['room barge: connection lost, reconnecting', 'room barge: reconnected']);
    room.leave();
    expect(await job.ended).toEqual({});
  }, 15_000);

  it('ends the call for everyone when the dialogue ends it', async () => {
    const room = new RoomDouble('bye-room');
    const api = new ServerApiDouble();
    const ending: Dialogue = { name: 'ending', respond: () => from<DialogueOutput[]>([{ type: 'text', delta: 'goodbye' }, { type: 'end-call', reason: 'done' }]) };
    const { job } = startJob(room, { agent: agentWith(ending), control: new CallControl({ rooms: api, sip: api }) });
    room.join({ identity: 'erin', attributes: { traceparent } });
    await vi.waitFor(() => expect(states(room)).toContain('listening'));
    callerSays(room);
    expect(await job.ended).toEqual({});
    expect(api.calls).toEqual(['deleteRoom bye-room']);
  }, 15_000);

  it('transfers a SIP caller where the dialogue asked, instead of ending the call', async () => {
    const room = new RoomDouble('sip-call');
    const api = new ServerApiDouble();
    const transferring: Dialogue = {
      name: 'transfer',
      respond: () =>
        from<DialogueOutput[]>([
          { type: 'tool-call', name: 'transfer_call', arguments: { to: 'human agent' } },
          { type: 'text', delta: 'transferring you' },
          { type: 'end-call', reason: 'transferred' },
        ]),
    };
    const control = new CallControl({ rooms: api, sip: api, transferTargets: { 'human agent': 'tel:+15550100' } });
    const { job } = startJob(room, { agent: agentWith(transferring), control });
    room.join({ identity: 'sip_+15551234', kind: 'sip', attributes: { traceparent } });
    await vi.waitFor(() => expect(states(room)).toContain('listening'));
    callerSays(room);
    expect(await job.ended).toEqual({});
    expect(api.calls).toEqual(['transfer sip-call sip_+15551234 tel:+15550100']);
  }, 15_000);

  it('leaves without touching the room when the caller hangs up, and gives up when no caller comes', async () => {
    const api = new ServerApiDouble();
    const control = new CallControl({ rooms: api, sip: api });
    const room = new RoomDouble();
    const { job } = startJob(room, { agent: agentWith(new FixedDialogue('fine')), control });
    room.join({ identity: 'frank', attributes: { traceparent } });
    await vi.waitFor(() => expect(states(room)).toContain('listening'));
    room.leave();
    expect(await job.ended).toEqual({});

    const empty = new RoomDouble('empty');
    const waited = startJob(empty, { agent: agentWith(new FixedDialogue('fine')), control, callerWaitMs: 50 });
    expect(await waited.job.ended).toEqual({});
    expect(waited.sessions).toHaveLength(0);
    expect(empty.disconnected).toBe(true);
    expect(api.calls).toEqual([]);
  });

  it('hangs up when terminated, and reports a room it could not join', async () => {
    const room = new RoomDouble();
    const { job, sessions } = startJob(room, { agent: agentWith(new FixedDialogue('fine')) });
    room.join({ identity: 'gina', attributes: { traceparent } });
    await vi.waitFor(() => expect(sessions).toHaveLength(1));
    job.terminate('terminated by the server');
    expect(await job.ended).toEqual({});
    expect((await sessions[0]!.summary).reason).toBe('terminated by the server');

    const refused = new CallJob(assigned('locked'), { agent: agentWith(new FixedDialogue('fine')), connect: () => Promise.reject(new Error('401 invalid token')) });
    await expect(refused.joined).rejects.toThrow('401');
    const stuck = new CallJob(assigned('slow'), { agent: agentWith(new FixedDialogue('fine')), connect: () => new Promise(() => undefined) });
    stuck.terminate('worker drain timed out');
    expect(await stuck.ended).toEqual({ error: 'worker drain timed out before joining room slow' });
    expect(await refused.ended).toEqual({ error: 'could not join room locked: 401 invalid token' });
  });
});
