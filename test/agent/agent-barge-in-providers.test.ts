import { afterEach, describe, expect, it } from 'vitest';
import { playedText, VoiceAgent, type AgentEvent, type TextToSpeech } from '../../src/agent/index.js';
import { VirtualClock } from '../../src/pipeline/index.js';
import { FileTransport } from '../../src/transports/file/file-transport.js';
import { cartesia } from '../../plugins/cartesia/index.js';
import { elevenlabs } from '../../plugins/elevenlabs/index.js';
import { AmplitudeStt, callerTrack, EnergyVad, FixedDialogue } from '../support/agent-doubles.js';
import { CartesiaDouble } from '../support/cartesia-double.js';
import { ElevenLabsDouble } from '../support/elevenlabs-double.js';
import { spokenAudio, type DoubleWord } from '../support/synthesis-double-kit.js';

const REPLY = 'Certainly, your table for four is booked for tomorrow evening at half past seven.';
const MS_PER_CHAR = 20;

/** The words of the pieces a double spoke, timed from the reply's start as the double times them. */
function timeline(pieces: readonly string[]): DoubleWord[] {
  const words: DoubleWord[] = [];
  let offsetMs = 0;
  for (const piece of pieces) {
    const spoken = spokenAudio(piece, 16000, MS_PER_CHAR);
    words.push(...spoken.words.map((w) => ({ ...w, startMs: w.startMs + offsetMs, endMs: w.endMs + offsetMs })));
    offsetMs += (spoken.samples.length * 1000) / 16000;
  }
  return words;
}

/** The messages of the first reply (context) a double was sent. */
function firstContext(messages: ReadonlyArray<Record<string, unknown>>): Array<Record<string, unknown>> {
  const first = messages.find((m) => typeof m['context_id'] === 'string')?.['context_id'];
  return messages.filter((m) => m['context_id'] === first);
}

/** "hello there" at 0.5 s, then the caller speaks over the reply from `bargeInAtMs`. */
async function call(tts: TextToSpeech, bargeInAtMs: number) {
  const clock = new VirtualClock();
  const agent = new VoiceAgent({ dialogue: new FixedDialogue(REPLY), stt: new AmplitudeStt(), tts, vad: () => new EnergyVad(), mode: 'balanced', clock });
  const transport = new FileTransport(
    callerTrack(8000, [
      { atMs: 500, ms: 600, amplitude: 5000 },
      { atMs: bargeInAtMs, ms: 900, amplitude: 8000 },
    ]),
    clock,
    { maxTailMs: 8000 },
  );
  const session = agent.handle(transport);
  transport.settle = () => session.settled();
  const events: Array<AgentEvent & { clockMs: number }> = [];
  session.events$.subscribe((event) => events.push({ ...event, clockMs: clock.now() }));
  const summary = await session.summary;
  const startedAt = events.find((e) => e.type === 'agent-started-speaking')!.clockMs;
  const pausedAt = events.find((e) => e.type === 'agent-paused')?.clockMs ?? Number.NaN;
  const cut = session.history.find((m) => m.role === 'agent')!;
  const interrupted = events.find((e) => e.type === 'interrupted') as Extract<AgentEvent, { type: 'interrupted' }> | undefined;
  return { startedAt, playedMs: pausedAt - startedAt, cut, interrupted, summary };
}

const providers = [
  {
    name: 'cartesia',
    start: async () => {
      const double = await CartesiaDouble.start({ msPerChar: MS_PER_CHAR });
      const tts = cartesia({ apiKey: 'test-key', baseUrl: double.url });
      const pieces = () => firstContext(double.seen.flatMap((s) => s.messages)).map((m) => String(m['transcript'] ?? '').trim()).filter(Boolean);
      return { tts, pieces, close: async () => (tts.close(), await double.close()) };
    },
  },
  {
    name: 'elevenlabs',
    start: async () => {
      const double = await ElevenLabsDouble.start({ msPerChar: MS_PER_CHAR });
      const tts = elevenlabs({ apiKey: 'test-key', baseUrl: double.url });
      const pieces = () => firstContext(double.seen.flatMap((s) => s.messages)).filter((m) => m['flush'] === true).map((m) => String(m['text'] ?? '').trim()).filter(Boolean);
      return { tts, pieces, close: async () => (tts.close(), await double.close()) };
    },
  },
];

describe('barge-in truncates the reply at the last word played, by the provider\'s word timings', () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  for (const provider of providers) {
    it(`${provider.name}: a barge-in about 1.2 s into the reply keeps exactly the words whose end was played`, async () => {
      const started = await provider.start();
      close = started.close;
      // The reply's first audio comes at a fixed point of the virtual call; the caller starts 980 ms after it and the
      // agent pauses 200 ms later (minSpeechMs), on the VAD's window: 1180 ms of the reply played.
      const probe = await provider.start();
      const { startedAt } = await call(probe.tts, 7000);
      await probe.close();

      const { playedMs, cut, interrupted, summary } = await call(started.tts, startedAt + 980);
      expect(playedMs).toBe(1180);
      const words = timeline(started.pieces());
      expect(words.map((w) => w.word).join(' ')).toBe(REPLY);
      // 1180 ms falls inside "evening" (1080-1220 ms): it started but was not played to its end.
      const partial = words.find((w) => w.startMs < playedMs && w.endMs > playedMs);
      expect(partial?.word).toBe('evening');
      const expected = words.filter((w) => w.endMs <= playedMs).map((w) => w.word).join(' ');
      expect(expected).toBe('Certainly, your table for four is booked for tomorrow');
      expect(cut).toEqual({ role: 'agent', text: expected, interrupted: true });
      // What call records keep as played (`interrupted` entries) and the turn's report say the same.
      expect(interrupted?.playedText).toBe(expected);
      expect(summary.turns[0]!.agentText).toBe(expected);
      // Today's estimate without timings (share of audio) would have said otherwise.
      const totalMs = words.at(-1)!.endMs + MS_PER_CHAR;
      expect(playedText(REPLY, playedMs, totalMs, [])).not.toBe(expected);
    });
  }
});
