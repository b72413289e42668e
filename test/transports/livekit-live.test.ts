import { describe, expect, it } from 'vitest';
import { firstValueFrom, filter, take, toArray } from 'rxjs';
import { createFrame } from '../../src/audio/frame.js';
import { AgentDispatchClient } from 'livekit-server-sdk';
import { VoiceAgent } from '../../src/agent/index.js';
import { callJobRunner, connectRoom, createAgentToken, LiveKitWorker, liveKitNames, type WorkerEvent } from '../../src/transports/livekit/index.js';
import { AmplitudeStt, EnergyVad, FixedDialogue, ToneTts } from '../support/agent-doubles.js';

const url = process.env.LIVEKIT_URL;
const apiKey = process.env.LIVEKIT_API_KEY;
const apiSecret = process.env.LIVEKIT_API_SECRET;

// Needs a LiveKit server: set LIVEKIT_URL, LIVEKIT_API_KEY and LIVEKIT_API_SECRET to run it.
describe.skipIf(!url || !apiKey || !apiSecret)('LiveKit room link against a live server', () => {
  it('hears a caller publishing audio and publishes the agent voice back', async () => {
    const rtc = await import('@livekit/rtc-node');
    const room = `shoal-live-test-${Date.now()}`;
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const callerToken = await createAgentToken({ apiKey: apiKey!, apiSecret: apiSecret!, room, identity: 'caller', attributes: { traceparent }, kind: 'standard' });
    const agentToken = await createAgentToken({ apiKey: apiKey!, apiSecret: apiSecret!, room, identity: 'agent' });

    const caller = new rtc.Room();
    await caller.connect(url!, callerToken, { autoSubscribe: true, dynacast: false });
    const callerSource = new rtc.AudioSource(16000, 1);
    await caller.localParticipant!.publishTrack(
      rtc.LocalAudioTrack.createAudioTrack('mic', callerSource),
      new rtc.TrackPublishOptions({ source: rtc.TrackSource.SOURCE_MICROPHONE }),
    );
    const agentHeard = new Promise<boolean>((resolve) => {
      caller.on(rtc.RoomEvent.TrackSubscribed, (track) => {
        void (async () => {
          const reader = new rtc.AudioStream(track, { sampleRate: 16000, numChannels: 1 }).getReader();
          for (let next = await reader.read(); !next.done; next = await reader.read()) {
            if (next.value.data.some((sample) => Math.abs(sample) > 1000)) return resolve(true);
          }
        })();
      });
    });

    const link = await connectRoom({ url: url!, token: agentToken });
    const loudFrames = firstValueFrom(
      link.callerAudio$.pipe(filter((frame) => frame.samples.some((sample) => Math.abs(sample) > 1000)), take(5), toArray()),
    );
    const tone = Int16Array.from({ length: 160 }, (_, i) => Math.round(10000 * Math.sin((2 * Math.PI * 440 * i) / 16000)));
    for (let i = 0; i < 150; i += 1) await callerSource.captureFrame(new rtc.AudioFrame(tone, 16000, 1, 160));
    expect((await loudFrames).every((frame) => frame.sampleRate === 16000)).toBe(true);
    expect(link.callerAttributes().traceparent).toBe(traceparent);

    const agentTone = Int16Array.from({ length: 480 }, (_, i) => Math.round(10000 * Math.sin((2 * Math.PI * 300 * i) / 24000)));
    for (let i = 0; i < 100; i += 1) await link.publish(createFrame(agentTone, 24000));
    expect(await agentHeard).toBe(true);

    await link.disconnect();
    await caller.disconnect();
  }, 60_000);

  it('full path: the worker registers, is dispatched to a room, greets the caller once there, transcribes and reports state', async () => {
    const rtc = await import('@livekit/rtc-node');
    const agentName = `shoal-live-${Date.now()}`;
    const room = `shoal-dispatch-${Date.now()}`;
    const events: WorkerEvent[] = [];
    const worker = new LiveKitWorker({
      url: url!,
      apiKey: apiKey!,
      apiSecret: apiSecret!,
      agentName,
      capacity: 2,
      runJob: callJobRunner({
        agent: new VoiceAgent({ dialogue: new FixedDialogue('fine', 'Hello from the worker'), stt: new AmplitudeStt(), tts: new ToneTts(), vad: () => new EnergyVad(), mode: 'low-latency' }),
      }),
    });
    worker.events$.subscribe((event) => events.push(event));
    await worker.start();
    expect(worker.workerId).toBeTruthy();

    await new AgentDispatchClient(url!, apiKey!, apiSecret!).createDispatch(room, agentName);
    const caller = new rtc.Room();
    const transcripts: Array<{ text: string; attributes: Record<string, string>; from: string }> = [];
    caller.registerTextStreamHandler(liveKitNames.transcriptionTopic, (reader, participant) => {
      void reader.readAll().then((text) => transcripts.push({ text, attributes: reader.info.attributes ?? {}, from: participant.identity }));
    });
    const heard = new Promise<void>((resolve) => {
      caller.on(rtc.RoomEvent.TrackSubscribed, (track) => {
        void (async () => {
          const reader = new rtc.AudioStream(track, { sampleRate: 16000, numChannels: 1 }).getReader();
          for (let next = await reader.read(); !next.done; next = await reader.read()) {
            if (next.value.data.some((sample) => Math.abs(sample) > 1000)) return resolve();
          }
        })();
      });
    });
    const callerToken = await createAgentToken({ apiKey: apiKey!, apiSecret: apiSecret!, room, identity: 'live-caller', kind: 'standard' });
    await caller.connect(url!, callerToken, { autoSubscribe: true, dynacast: false });
    await heard;
    const agent = [...caller.remoteParticipants.values()].find((p) => p.identity.startsWith('agent-'))!;
    expect(agent.kind).toBe(rtc.ParticipantKind.AGENT);
    expect(agent.attributes['lk.agent.name']).toBe(agentName);
    await expect.poll(() => agent.attributes[liveKitNames.agentState], { timeout: 10_000 }).toBe('listening');
    await expect.poll(() => transcripts.find((t) => t.from === agent.identity)?.text, { timeout: 10_000 }).toBe('Hello from the worker');

    await caller.disconnect();
    await expect.poll(() => events.some((e) => e.type === 'job-ended'), { timeout: 15_000 }).toBe(true);
    expect(events.find((e) => e.type === 'job-ended')).not.toHaveProperty('error', expect.any(String));
    await worker.close();
  }, 90_000);
});
