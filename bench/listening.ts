/**
 * Listening benchmark on real human speech (test/fixtures/human): prints one JSON object.
 * - WER per kind (yes-no, digits, command, sentence), open vocabulary and with the kind's expectations,
 *   at 16 kHz and through a telephone channel (8 kHz mu-law and back);
 * - false accepts: clips checked against the expectations of other kinds, share that came back as an
 *   expected answer;
 * - end of speech → final transcript p50/p95 (streaming recognizer, with expectations, short answers);
 * - task success of the IVR calls in test/fixtures/human-calls (examples/scripts/parcel-line.yaml).
 * The thresholds of recognition with expectations were tuned on these same clips: not held-out figures.
 * Run: flock /tmp/bench.lock npx tsx bench/listening.ts [--quick]   (--quick: 16 kHz only, no calls)
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { createEmbeddedAgentStack, percentile, type AgentEvent, type Expectation } from '../src/agent/index.js';
import { decodeMuLaw, encodeMuLaw } from '../src/audio/index.js';
import { resample } from '../src/audio/resampler.js';
import { PocketSphinxEngine } from '../src/engines/pocketsphinx/index.js';
import { decodeCall, runFileCall } from '../src/transports/file/run-call.js';
import { loadScriptedDialogue } from '../plugins/index.js';
import { readPcmWav, wordErrors } from '../test/engines-fixtures.js';

const quick = process.argv.includes('--quick');
const dir = 'test/fixtures/human/';
type Kind = 'yes-no' | 'digits' | 'command' | 'sentence';
const clips = (JSON.parse(readFileSync(`${dir}manifest.json`, 'utf8')) as Array<{ file: string; text: string; kind: Kind }>).map((c) => ({
  ...c,
  pcm: readPcmWav(dir + c.file).samples,
}));
const expectationsOf: Record<Kind, Expectation[]> = {
  'yes-no': [{ kind: 'yes-no' }],
  digits: [{ kind: 'digits' }],
  command: [{ kind: 'choice', options: ['go', 'stop', 'up', 'down', 'left', 'right', 'on', 'off'] }],
  sentence: [{ kind: 'free' }],
};
const kinds = Object.keys(expectationsOf) as Kind[];
const round = (value: number | undefined) => (value === undefined ? null : Math.round(value * 1000) / 1000);

async function telephone(pcm: Int16Array): Promise<Int16Array> {
  return resample(decodeMuLaw(encodeMuLaw(await resample(pcm, 16000, 8000))), 8000, 16000);
}

async function werByKind(engine: PocketSphinxEngine, band: 'wide' | 'telephone') {
  const totals = new Map<string, { errors: number; words: number }>();
  const add = (key: string, e: { errors: number; words: number }) => {
    const t = totals.get(key) ?? { errors: 0, words: 0 };
    totals.set(key, { errors: t.errors + e.errors, words: t.words + e.words });
  };
  for (const clip of clips) {
    const pcm = band === 'wide' ? clip.pcm : await telephone(clip.pcm);
    add(`${clip.kind}/open`, wordErrors(clip.text, (await engine.transcribe(pcm)).text));
    add(`${clip.kind}/expected`, wordErrors(clip.text, (await engine.transcribe(pcm, { expectations: expectationsOf[clip.kind] })).text));
  }
  const result: Record<string, Record<string, number | null>> = {};
  for (const kind of kinds) {
    result[kind] = Object.fromEntries(['open', 'expected'].map((mode) => {
      const t = totals.get(`${kind}/${mode}`)!;
      return [mode, round(t.errors / t.words)];
    }));
  }
  const short = ['open', 'expected'].map((mode) => {
    const parts = kinds.filter((k) => k !== 'sentence').map((k) => totals.get(`${k}/${mode}`)!);
    return round(parts.reduce((s, p) => s + p.errors, 0) / parts.reduce((s, p) => s + p.words, 0));
  });
  return { ...result, short_answers: { open: short[0], expected: short[1] } };
}

async function falseAccepts(engine: PocketSphinxEngine) {
  let trials = 0;
  let accepted = 0;
  const cases: string[] = [];
  for (const clip of clips) {
    for (const kind of kinds.filter((k) => k !== clip.kind && k !== 'sentence')) {
      const heard = await engine.transcribe(clip.pcm, { expectations: expectationsOf[kind] });
      trials++;
      if (heard.expected) {
        accepted++;
        cases.push(`${clip.file} "${clip.text}" as ${kind}: "${heard.text}"`);
      }
    }
  }
  return { trials, accepted, rate: round(accepted / trials), cases };
}

async function finalLatency(engine: PocketSphinxEngine) {
  const ms: number[] = [];
  for (const clip of clips.filter((c) => c.kind !== 'sentence')) {
    const recognizer = engine.createRecognizer();
    await recognizer.expect!(expectationsOf[clip.kind]);
    for (let at = 0; at < clip.pcm.length; at += 320) await recognizer.write(clip.pcm.subarray(at, at + 320));
    const started = performance.now();
    await recognizer.finish();
    ms.push(performance.now() - started);
    recognizer.close();
  }
  return { utterances: ms.length, p50_ms: round(percentile(ms, 50)), p95_ms: round(percentile(ms, 95)) };
}

const calls = [
  { file: 'parcel-16k.wav', route: { code: '4192', option: 'go' } },
  { file: 'parcel-8k-ulaw.wav', route: { code: '4192', option: 'stop' } },
  { file: 'parcel-retry-16k.wav', route: { code: '4192', option: 'up' } },
];

async function ivrCalls() {
  const stack = await createEmbeddedAgentStack({ mode: 'balanced' });
  const results: Array<{ file: string; success: boolean; caller_turns: string[] }> = [];
  try {
    for (const call of calls) {
      const events: AgentEvent[] = [];
      const caller = await decodeCall(readFileSync(`test/fixtures/human-calls/${call.file}`));
      const dialogue = loadScriptedDialogue('examples/scripts/parcel-line.yaml');
      const { summary } = await runFileCall(stack.agentFor(dialogue), caller, { fast: true, onEvent: (e) => events.push(e) });
      const routed = events.find((e) => e.type === 'tool-call' && e.name === 'route');
      const success = JSON.stringify(routed?.type === 'tool-call' ? routed.arguments : null) === JSON.stringify(call.route);
      results.push({ file: call.file, success, caller_turns: summary.turns.map((t) => t.userText).filter(Boolean) });
    }
  } finally {
    await stack.close();
  }
  return { success: results.filter((r) => r.success).length, calls: results.length, results };
}

const engine = new PocketSphinxEngine();
const report: Record<string, unknown> = { load_average_at_start: loadavg().map((v) => Math.round(v * 100) / 100) };
/** Each section is also printed to stderr as it completes, so a run cut short still leaves its figures. */
async function section(name: string, run: () => Promise<unknown>): Promise<void> {
  report[name] = await run();
  console.error(JSON.stringify({ [name]: report[name] }));
}
try {
  await section('wer_16k', () => werByKind(engine, 'wide'));
  await section('false_accepts', () => falseAccepts(engine));
  await section('end_of_speech_to_final_with_expectations', () => finalLatency(engine));
  if (!quick) {
    await section('ivr_calls', () => ivrCalls());
    await section('wer_8k', () => werByKind(engine, 'telephone'));
  }
  report.load_average_at_end = loadavg().map((v) => Math.round(v * 100) / 100);
  console.log(JSON.stringify(report));
} finally {
  await engine.shutdown();
}
