import type { WebSocket } from 'ws';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CallRecording, recordedTransport, SqliteCallStore, VoiceAgent, type Transport, type TransportDescription } from '../../src/agent/index.js';
import { VirtualClock } from '../../src/pipeline/index.js';
import { SpokenCaptions } from '../../src/transports/browser/index.js';
import { FileTransport } from '../../src/transports/file/file-transport.js';
import { LiveKitTransport } from '../../src/transports/livekit/livekit-transport.js';
import { carriers } from '../../src/transports/telephony/carriers/index.js';
import { TelephonyTransport } from '../../src/transports/telephony/telephony-transport.js';
import { BrowserLine } from '../../src/testing/browser-line.js';
import { dialects, MediaStreamLine } from '../../src/testing/media-stream-line.js';
import { AmplitudeStt, callerTrack, EnergyVad, FixedDialogue, ToneTts } from '../support/agent-doubles.js';
import { RoomDouble } from '../support/livekit-room-double.js';

const socket = () => ({ OPEN: 1, readyState: 1, send: () => undefined, close: () => undefined }) as unknown as WebSocket;

/** Every transport a call can come in on, with the name its record must give it. */
function everyTransport(clock: VirtualClock): Array<{ name: string; transport: Transport; expected: TransportDescription }> {
  const phones = Object.values(carriers).map((carrier) => ({
    name: `phone (${carrier.name})`,
    transport: new TelephonyTransport(socket(), { streamSid: 'MZ1', callSid: 'CA1', traceContext: {}, customParameters: { from: '+14155550100', to: '+14155550111' }, carrier, clock }),
    expected: { kind: 'phone', carrier: carrier.name, callId: 'CA1', from: '+14155550100', to: '+14155550111' },
  }));
  const tested = Object.entries(dialects).map(([line, dialect]) => ({
    name: `shoal test, ${line} line`,
    transport: new MediaStreamLine(dialect, clock, {}).transport,
    expected: { kind: 'phone', carrier: dialect.carrier.name },
  }));
  return [
    ...phones,
    ...tested,
    { name: 'shoal test, browser line', transport: new BrowserLine(clock, {}).transport, expected: { kind: 'browser', callId: 'scenario' } },
    { name: 'LiveKit', transport: new LiveKitTransport(new RoomDouble('support-42')), expected: { kind: 'livekit', callId: 'support-42' } },
    { name: 'shoal talk', transport: new FileTransport(callerTrack(1000, []), clock), expected: { kind: 'file' } },
  ];
}

describe("a call record's transport", () => {
  it('is named for every transport, through the browser captions and the audio recording wrapped around it', async () => {
    const clock = new VirtualClock();
    const recording = new CallRecording(join(await mkdtemp(join(tmpdir(), 'shoal-transports-')), 'call.ogg'), clock);
    const named = everyTransport(clock).map(({ name, transport, expected }) => ({
      name,
      expected,
      bare: transport.describe?.(),
      captioned: new SpokenCaptions().transport(transport).describe?.(),
      recorded: recordedTransport(new SpokenCaptions().transport(transport), recording).describe?.(),
    }));
    await recording.end();
    expect(named.map((entry) => entry.name)).toEqual([
      'phone (twilio)',
      'phone (telnyx)',
      'phone (plivo)',
      'phone (vonage)',
      'phone (exotel)',
      'shoal test, phone line',
      'shoal test, wideband line',
      'shoal test, browser line',
      'LiveKit',
      'shoal talk',
    ]);
    for (const { name, expected, bare, captioned, recorded } of named) {
      expect(bare, name).toMatchObject(expected);
      expect(captioned, name).toEqual(bare);
      expect(recorded, name).toEqual(bare);
    }
  });

  it("says browser, with the call's id, for a browser call with captions (the agent's page)", async () => {
    const clock = new VirtualClock();
    const store = new SqliteCallStore(await mkdtemp(join(tmpdir(), 'shoal-transports-')));
    const agent = new VoiceAgent({
      dialogue: new FixedDialogue(() => 'ok.', 'Hi.'),
      stt: new AmplitudeStt(),
      tts: new ToneTts(),
      vad: () => new EnergyVad(),
      mode: 'balanced',
      clock,
      records: { store, flushEveryMs: 10 },
    });
    const line = new BrowserLine(clock, {});
    const captions = new SpokenCaptions();
    const session = agent.handle(captions.transport(line.transport), { clock });
    captions.follow(session.events$);
    await new Promise((resolve) => setTimeout(resolve, 20));
    clock.advanceTo(100);
    line.hangUp();
    clock.advanceTo(200);
    await session.summary;
    await new Promise((resolve) => setTimeout(resolve, 50));
    const [call] = (await store.list({})).calls;
    expect(call?.transport).toEqual({ kind: 'browser', callId: 'scenario' });
    await store.close();
  });
});
