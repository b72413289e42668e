/**
 * Recognizer cost benchmark: CPU per second of audio and WER of pocketsphinx search configurations.
 * Decodes one utterance at a time (one busy thread): the human clips of test/fixtures/human (both folds, at
 * 16 kHz and through the telephone channel, open vocabulary), the synthetic speech fixtures and the caller
 * side of the fixture calls (test/fixtures/calls, transcribed whole). Prints one JSON line per configuration.
 * CPU is process.cpuUsage() (all threads, user + system) around the decodes, after the model is loaded.
 * `--dict=PATH` decodes with another pronunciation dictionary (e.g. the LM's most frequent words only: words of the
 * language model missing from the dictionary are never hypothesised). RSS growth over the model load is printed too.
 * Run: npx tsx bench/recognizer-cost.ts [--only=baseline,topn2] [--args="-maxwpf 20"] [--dict=PATH]
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { resample } from '../src/audio/resampler.js';
import { PocketSphinxEngine } from '../src/engines/pocketsphinx/index.js';
import { decodeCall } from '../src/transports/file/file-call.js';
import { readPcmWav, speechFixtures, throughTelephoneChannel, wordErrors } from '../test/support/engines-fixtures.js';

type Fold = 'tuning' | 'held_out';
interface Clip {
  set: string;
  text: string;
  pcm: Int16Array;
}

const configs: Record<string, { extraArguments?: string[]; secondPass?: boolean }> = {
  baseline: {},
  pl_window5: { extraArguments: ['-pl_window', '5'] },
  pl_window10: { extraArguments: ['-pl_window', '10'] },
  maxhmmpf5000: { extraArguments: ['-maxhmmpf', '5000'] },
  maxhmmpf10000: { extraArguments: ['-maxhmmpf', '10000'] },
  maxwpf10: { extraArguments: ['-maxwpf', '10'] },
  maxwpf20: { extraArguments: ['-maxwpf', '20'] },
  topn2: { extraArguments: ['-topn', '2'] },
  topn3: { extraArguments: ['-topn', '3'] },
  beam40_wbeam30: { extraArguments: ['-beam', '1e-40', '-wbeam', '1e-30'] },
  fwdflat_no: { extraArguments: ['-fwdflat', 'no'] },
  ds2: { extraArguments: ['-ds', '2'] },
};
const only = process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length).split(',');
const extra = process.argv.find((a) => a.startsWith('--args='))?.slice('--args='.length);
if (extra) configs[`custom:${extra}`] = { extraArguments: extra.split(' ') };
const dictionaryPath = process.argv.find((a) => a.startsWith('--dict='))?.slice('--dict='.length);


async function loadClips(): Promise<Clip[]> {
  const dir = 'test/fixtures/human/';
  const folds = JSON.parse(readFileSync(`${dir}folds.json`, 'utf8')) as Record<Fold, string[]>;
  const manifest = JSON.parse(readFileSync(`${dir}manifest.json`, 'utf8')) as Array<{ file: string; text: string; kind: string }>;
  const clips: Clip[] = [];
  for (const c of manifest) {
    const fold: Fold = folds.held_out.includes(c.file) ? 'held_out' : 'tuning';
    const kind = c.kind === 'sentence' ? 'sentence' : 'short';
    const pcm = readPcmWav(dir + c.file).samples;
    clips.push({ set: `${fold}/${kind}/16k`, text: c.text, pcm }, { set: `${fold}/${kind}/8k`, text: c.text, pcm: await throughTelephoneChannel(pcm) });
  }
  for (const f of speechFixtures()) clips.push({ set: 'fixtures/speech', text: f.text, pcm: f.pcm });
  const calls = JSON.parse(readFileSync('test/fixtures/calls/manifest.json', 'utf8')) as Array<{ file: string; turns: string[] }>;
  for (const call of calls) {
    const caller = await decodeCall(readFileSync(`test/fixtures/calls/${call.file}`));
    const pcm = caller.sampleRate === 16000 ? caller.samples : await resample(caller.samples, caller.sampleRate, 16000);
    clips.push({ set: 'fixtures/calls', text: call.turns.join(' '), pcm });
  }
  return clips;
}

const round = (value: number, places = 3) => Math.round(value * 10 ** places) / 10 ** places;

async function measure(name: string, clips: Clip[]) {
  const engine = new PocketSphinxEngine({ ...configs[name], ...(dictionaryPath ? { dictionaryPath } : {}) });
  const rssBefore = process.memoryUsage().rss;
  await engine.preload();
  const modelMb = (process.memoryUsage().rss - rssBefore) / 2 ** 20;
  const totals = new Map<string, { errors: number; words: number }>();
  let audioMs = 0;
  const before = process.cpuUsage();
  const started = performance.now();
  for (const clip of clips) {
    const e = wordErrors(clip.text, (await engine.transcribe(clip.pcm)).text);
    const t = totals.get(clip.set) ?? { errors: 0, words: 0 };
    totals.set(clip.set, { errors: t.errors + e.errors, words: t.words + e.words });
    audioMs += (clip.pcm.length / 16000) * 1000;
  }
  const cpu = process.cpuUsage(before);
  const wallMs = performance.now() - started;
  await engine.shutdown();
  const wer = Object.fromEntries([...totals].sort().map(([set, t]) => [set, round(t.errors / t.words)]));
  return {
    config: name,
    arguments: configs[name]!.extraArguments ?? [],
    dictionary: dictionaryPath ?? 'default',
    rss_model_load_mb: round(modelMb, 1),
    cpu_ms_per_audio_s: round((cpu.user + cpu.system) / audioMs, 1),
    wall_ms_per_audio_s: round((wallMs / audioMs) * 1000, 1),
    audio_s: round(audioMs / 1000, 1),
    wer,
    loadavg: loadavg().map((l) => round(l, 2)),
  };
}

const clips = await loadClips();
for (const name of Object.keys(configs).filter((n) => !only || only.includes(n) || n.startsWith('custom:'))) {
  try {
    console.log(JSON.stringify(await measure(name, clips)));
  } catch (error) {
    console.log(JSON.stringify({ config: name, error: (error as Error).message }));
  }
}
