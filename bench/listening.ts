/**
 * Listening benchmark on real human speech (test/fixtures/human, and as a second held-out set of other speakers
 * test/fixtures/human-cmu): prints one JSON object.
 * - WER per kind (yes-no, digits, command, card, sentence), open vocabulary and with the kind's expectations,
 *   at 16 kHz and through a telephone channel (8 kHz mu-law and back), the latter also with `transcribe`
 *   told it is telephone audio (wer_8k_telephone_band);
 * - false accepts: clips checked against the expectations of other kinds (those that do not take the clip's
 *   words), share that came back as an expected answer;
 * - the same streamed in 20 ms frames to a fresh recognizer, as a call's first answer is heard: at 16 kHz with
 *   the agent stacks' decoder arguments (wer_16k_streaming: what a caller of `shoal agent`/`shoal talk` gets;
 *   wer_16k is what `shoal asr` and `/v1/asr` give), and through the telephone channel with the same arguments
 *   (wer_8k_streaming: what a phone caller gets);
 * - endpoint → final transcript p50/p95 (short answers with expectations, played in real time through the
 *   agent's VAD, endpointing and streaming recognizer, with the agent stacks' recognizer arguments:
 *   bench/listening-endpoint.ts), and the WER of those streamed answers per fold;
 * - as_a_call_hears_them_16k / _8k: WER and false accepts of every clip through the agent's VAD, endpointing
 *   and streaming recognizer (what `shoal agent` callers get; 8 kHz through the telephone channel), over four
 *   lines (the clips as recorded, and under -85, -70 and -60 dBFS line noise): `over_lines` sums them and is
 *   the figure to quote, `per_line` gives each;
 * - digits_with_the_prompts_length_16k / _8k: the digits answers heard so, with and without the length a real
 *   prompt for a code gives;
 * - task success of the IVR calls in test/fixtures/human-calls (examples/scripts/parcel-line.yaml).
 * WER and false accepts are given per fold of test/fixtures/human/folds.json: constants are fitted on
 * `tuning` (speaker-disjoint from `held_out`), so the `held_out` figures are the ones to quote, with
 * `second_set` (test/fixtures/human-cmu, never fitted on).
 * Run: npx tsx bench/listening.ts [--quick] [--only=wer_8k,ivr_calls] [--band-blind]
 *   (--quick: 16 kHz only, no calls; --only: just the named sections; --band-blind: hear audio not said to be
 *   telephone audio with the wide-band model whatever its spectrum, to measure what the band detection buys)
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { createEmbeddedAgentStack, percentile, type AgentEvent, type Expectation } from '../src/agent/index.js';
import { countDigits } from '../src/agent/expected-answers.js';
import { PocketSphinxEngine } from '../src/engines/pocketsphinx/index.js';
import type { Hypothesis } from '../src/engines/types.js';
import { decodeCall, runFileCall } from '../src/transports/file/file-call.js';
import { loadScriptedDialogue } from '../plugins/index.js';
import { cardExpectations, readPcmWav, streamToRecognizer, throughTelephoneChannel, withLineNoise, wordErrors } from '../test/support/engines-fixtures.js';
import { defaults as sttDefaults } from '../src/agent/stt/streaming-engine-stt.js';
import { streamAnswers } from './listening-endpoint.js';
import { streamingAsrArguments } from '../src/agent/stack/asr-arguments.js';
import { compileGrammar } from '../src/engines/pocketsphinx/grammar.js';
import { grammarAccepts } from '../src/engines/pocketsphinx/grammar-match.js';

const quick = process.argv.includes('--quick');
const only = process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length).split(',');
const detectTelephoneBand = !process.argv.includes('--band-blind');
type Kind = 'yes-no' | 'digits' | 'command' | 'card' | 'sentence';
/** `second_set`: test/fixtures/human-cmu, other speakers, never fitted on (see its README). */
type Fold = 'tuning' | 'held_out' | 'second_set';
const folds = JSON.parse(readFileSync('test/fixtures/human/folds.json', 'utf8')) as Record<'tuning' | 'held_out', string[]>;
/** A set's clips; `name` prefixes their file names in the report. */
function readSet(dir: string, name: string, foldOf: (file: string) => Fold) {
  const manifest = JSON.parse(readFileSync(`${dir}manifest.json`, 'utf8')) as Array<{ file: string; text: string; kind: Kind }>;
  return manifest.map((c) => ({ ...c, file: name + c.file, fold: foldOf(c.file), pcm: readPcmWav(dir + c.file).samples }));
}
const clips = [
  ...readSet('test/fixtures/human/', '', (file) => (folds.held_out.includes(file) ? 'held_out' : 'tuning')),
  ...readSet('test/fixtures/human-cmu/', 'cmu/', () => 'second_set'),
];
const expectationsOf: Record<Kind, Expectation[]> = {
  'yes-no': [{ kind: 'yes-no' }],
  digits: [{ kind: 'digits' }],
  command: [{ kind: 'choice', options: ['go', 'stop', 'up', 'down', 'left', 'right', 'on', 'off'] }],
  card: cardExpectations,
  sentence: [{ kind: 'free' }],
};
const kinds = Object.keys(expectationsOf) as Kind[];
const foldNames: Fold[] = ['tuning', 'held_out', 'second_set'];
/** Each kind's grammar (none for `sentence`), to tell which texts it takes. */
const grammarOf = Object.fromEntries(kinds.map((k) => [k, compileGrammar(expectationsOf[k], () => true)])) as Record<Kind, string | undefined>;
/** The kinds a clip is tried against for false accepts: every kind that expects something and rejects its words. */
function falseAcceptKinds(clip: { kind: Kind; text: string }): Kind[] {
  return kinds.filter((k) => k !== clip.kind && grammarOf[k] !== undefined && !grammarAccepts(grammarOf[k], clip.text));
}

/** False accepts per fold: `accepted` of `trials`, each case named. */
class FalseAccepts {
  private readonly trials = { tuning: 0, held_out: 0, second_set: 0 };
  private readonly accepted = { tuning: 0, held_out: 0, second_set: 0 };
  private readonly cases: string[] = [];

  add(clip: { file: string; text: string; fold: Fold }, kind: Kind, text: string, accepted: boolean): void {
    this.trials[clip.fold]++;
    if (!accepted) return;
    this.accepted[clip.fold]++;
    this.cases.push(`${clip.file} (${clip.fold}) "${clip.text}" as ${kind}: "${text}"`);
  }

  report() {
    const sum = (counts: Record<Fold, number>, of: Fold[]) => of.reduce((n, f) => n + counts[f], 0);
    const dev: Fold[] = ['tuning', 'held_out'];
    return {
      trials: sum(this.trials, dev),
      accepted: sum(this.accepted, dev),
      rate: round(sum(this.accepted, dev) / sum(this.trials, dev)),
      held_out_rate: round(this.accepted.held_out / this.trials.held_out),
      second_set: { trials: this.trials.second_set, accepted: this.accepted.second_set, rate: round(this.accepted.second_set / this.trials.second_set) },
      cases: this.cases,
    };
  }
}
const round = (value: number | undefined) => (value === undefined ? null : Math.round(value * 1000) / 1000);

/** `telephone-band`: through the telephone channel, and `transcribe` told so (`telephoneBand`). */
async function werByKind(engine: PocketSphinxEngine, band: 'wide' | 'telephone' | 'telephone-band') {
  const totals = new Map<string, { errors: number; words: number }>();
  const add = (key: string, e: { errors: number; words: number }) => {
    const t = totals.get(key) ?? { errors: 0, words: 0 };
    totals.set(key, { errors: t.errors + e.errors, words: t.words + e.words });
  };
  for (const clip of clips) {
    const pcm = band === 'wide' ? clip.pcm : await throughTelephoneChannel(clip.pcm);
    const telephoneBand = band === 'telephone-band';
    const open = wordErrors(clip.text, (await engine.transcribe(pcm, { telephoneBand })).text);
    const expected = clip.kind === 'sentence' ? open : wordErrors(clip.text, (await engine.transcribe(pcm, { telephoneBand, expectations: expectationsOf[clip.kind] })).text);
    for (const scope of [clip.kind, `${clip.kind}/${clip.fold}`]) {
      add(`${scope}/open`, open);
      add(`${scope}/expected`, expected);
    }
  }
  const rate = (keys: string[], mode: string) => {
    const parts = keys.map((k) => totals.get(`${k}/${mode}`)).filter((p) => p !== undefined);
    return round(parts.reduce((s, p) => s + p.errors, 0) / parts.reduce((s, p) => s + p.words, 0));
  };
  const both = (keys: string[]) => ({ open: rate(keys, 'open'), expected: rate(keys, 'expected') });
  const short = kinds.filter((k) => k !== 'sentence');
  return {
    ...Object.fromEntries(kinds.map((kind) => [kind, both([kind])])),
    short_answers: both(short),
    ...Object.fromEntries(foldNames.map((f) => [f, { short_answers: both(short.map((k) => `${k}/${f}`)), sentence: both([`sentence/${f}`]) }])),
  };
}

/** How a section hears one clip, with or without expectations. */
type Hear = (pcm: Int16Array, expectations?: Expectation[]) => Promise<Hypothesis>;

/**
 * Like a call's first answer: the clip streamed in 20 ms frames to a fresh recognizer; for telephone-band audio
 * (live normalisation from the telephone starting mean) when `telephoneBand`.
 */
function streamed(engine: PocketSphinxEngine, telephoneBand: boolean): Hear {
  return (pcm, expectations) => streamToRecognizer(engine, pcm, expectations, telephoneBand);
}

/** Streamed WER per fold and, as `false_accepts`, the false accepts of the same streamed path. */
async function streamingWer(engine: PocketSphinxEngine, band: 'wide' | 'telephone') {
  const hear = streamed(engine, band === 'telephone');
  const totals: Record<string, { errors: number; words: number }> = {};
  for (const clip of clips) {
    const pcm = band === 'wide' ? clip.pcm : await throughTelephoneChannel(clip.pcm);
    for (const mode of clip.kind === 'sentence' ? ['open'] : ['open', 'expected']) {
      const heard = await hear(pcm, mode === 'expected' ? expectationsOf[clip.kind] : undefined);
      const e = wordErrors(clip.text, heard.text);
      const t = (totals[`${clip.kind === 'sentence' ? 'sentence' : 'short_answers'}/${clip.fold}/${mode}`] ??= { errors: 0, words: 0 });
      t.errors += e.errors;
      t.words += e.words;
    }
  }
  return {
    ...Object.fromEntries(Object.entries(totals).map(([key, t]) => [key, round(t.errors / t.words)])),
    false_accepts: await falseAccepts(hear, band),
  };
}

async function falseAccepts(hear: Hear, band: 'wide' | 'telephone') {
  const tally = new FalseAccepts();
  for (const clip of clips) {
    const pcm = band === 'wide' ? clip.pcm : await throughTelephoneChannel(clip.pcm);
    for (const kind of falseAcceptKinds(clip)) {
      const heard = await hear(pcm, expectationsOf[kind]);
      tally.add(clip, kind, heard.text, heard.expected === true);
    }
  }
  return tally.report();
}

/**
 * Measured on the recognizer configuration every agent stack runs (`streamingAsrArguments`), not this bench's
 * WER engine: with the STT defaults (the utterance decoded at the caller's pause) and, under `at_endpoint`,
 * with all decoding after the endpoint (`decodeAtPause: false`; the same texts by construction). See bench/listening-endpoint.ts.
 */
async function finalLatency() {
  const short = clips.filter((c) => c.kind !== 'sentence');
  const streamed = short.map((c) => ({ pcm: c.pcm, expectations: expectationsOf[c.kind] }));
  const figures = async (stt: { decodeAtPause?: boolean }) => {
    const { texts, endpointToFinalMs: ms } = await streamAnswers(agentEngine, streamed, stt);
    const errors = texts.map((text, i) => wordErrors(short[i]!.text, text));
    const wer = (fold: Fold) => {
      const own = errors.filter((_, i) => short[i]!.fold === fold);
      return round(own.reduce((s, e) => s + e.errors, 0) / own.reduce((s, e) => s + e.words, 0));
    };
    return { utterances: ms.length, p50_ms: round(percentile(ms, 50)), p95_ms: round(percentile(ms, 95)), wer_tuning: wer('tuning'), wer_held_out: wer('held_out'), wer_second_set: wer('second_set') };
  };
  return {
    recognizer: 'agent stacks (streamingAsrArguments)',
    trailing_quiet_ms: sttDefaults.trailingQuietMs,
    speech_paused_lead_ms: sttDefaults.speechPausedLeadMs,
    ...(await figures({})),
    at_endpoint: await figures({ decodeAtPause: false }),
  };
}

/**
 * The lines a call is heard over: the clips as recorded (most short clips of the first set are padded with
 * exact zeros, which no line gives, and a bit of noise moved answers across the grammar-or-open decision
 * before the grammar passes gated the quiet), and Gaussian line noise at these levels (-70 dBFS: the IVR calls' noise). The headline sums them.
 */
/** Quiet after each clip: the line's noise runs on for this long (as recorded: this much silence follows). */
const lineTailMs = 2000;
const lines: Array<{ name: string; dbfs?: number }> = [{ name: 'as_recorded' }, { name: '-85_dbfs', dbfs: -85 }, { name: '-70_dbfs', dbfs: -70 }, { name: '-60_dbfs', dbfs: -60 }];

/** Word errors per `short_answers|sentence/<fold>`, and false accepts, of one or more lines. */
class CallFigures {
  readonly errors: Record<string, { errors: number; words: number }> = {};
  readonly falseAccepts = new FalseAccepts();
  /** Each answer heard with word errors, named as the false accepts' cases are. */
  private readonly errorCases: string[] = [];

  addWords(key: string, e: { errors: number; words: number }, clip?: { file: string; text: string }, heard?: string): void {
    const t = (this.errors[key] ??= { errors: 0, words: 0 });
    t.errors += e.errors;
    t.words += e.words;
    if (clip && e.errors > 0) this.errorCases.push(`${clip.file} (${key}) "${clip.text}": "${heard}" (${e.errors})`);
  }

  report() {
    return {
      wer: Object.fromEntries(Object.entries(this.errors).map(([key, t]) => [key, round(t.errors / t.words)])),
      word_errors: Object.fromEntries(Object.entries(this.errors).map(([key, t]) => [key, `${t.errors}/${t.words}`])),
      false_accepts: this.falseAccepts.report(),
      error_cases: this.errorCases,
    };
  }
}

/**
 * What a caller gets: every clip through the agent's VAD, endpointing and streaming recognizer (agent stacks'
 * arguments; 8 kHz: through the telephone channel, the recognizer told the line is 8 kHz), once with its own
 * kind's expectations (WER per fold) and once with each other short kind's (false accepts), over each of
 * `lines`. A false accept is a final the dialogue would take as an expected answer: its text is a sentence of
 * the expectations' grammar, whichever search produced it (a stricter count than `Hypothesis.expected`).
 */
async function asACallHearsThem(band: 'wide' | 'telephone') {
  const overLines = new CallFigures();
  const perLine: Record<string, unknown> = {};
  for (const line of lines) {
    const figures = new CallFigures();
    await hearOverLine(band, line.dbfs, [figures, overLines], line.name);
    perLine[line.name] = figures.report();
  }
  return { over_lines: overLines.report(), per_line: perLine };
}

async function hearOverLine(band: 'wide' | 'telephone', dbfs: number | undefined, into: CallFigures[], lineName: string) {
  const trials: Array<{ clip: (typeof clips)[number]; kind: Kind; pcm: Int16Array }> = [];
  for (const clip of clips) {
    // The noise is on the line: through the telephone channel with the caller's voice.
    const line = dbfs === undefined ? clip.pcm : withLineNoise(clip.pcm, dbfs, lineTailMs);
    const pcm = band === 'wide' ? line : await throughTelephoneChannel(line);
    for (const kind of [clip.kind, ...falseAcceptKinds(clip)]) trials.push({ clip, kind, pcm });
  }
  const { texts } = await streamAnswers(
    agentEngine,
    trials.map((t) => ({ pcm: t.pcm, expectations: expectationsOf[t.kind] })),
    {},
    { realTime: false, callerSampleRate: band === 'wide' ? 16000 : 8000, trailingSilenceMs: dbfs === undefined ? lineTailMs : 0 },
  );
  trials.forEach(({ clip, kind }, i) => {
    const text = texts[i]!;
    for (const figures of into) {
      if (kind !== clip.kind) figures.falseAccepts.add({ ...clip, file: `${clip.file} [${lineName}]` }, kind, text, grammarAccepts(grammarOf[kind]!, text));
      else if (clip.kind === 'sentence') figures.addWords(`sentence/${clip.fold}`, wordErrors(clip.text, text));
      else figures.addWords(`short_answers/${clip.fold}`, wordErrors(clip.text, text), { ...clip, file: `${clip.file} [${lineName}]` }, text);
    }
  });
}

/**
 * The digits answers as a call hears them (as `as_a_call_hears_them_*`, over the same lines) when the prompt
 * says how many digits it wants, as a real prompt for a code does ("your four-digit code"): the grammar then
 * takes only answers of that length and the endpoint waits for it. Against the bench's digits expectation,
 * which has no length. Word errors per fold, summed over the lines.
 */
async function digitsWithThePromptsLength(band: 'wide' | 'telephone') {
  const digitClips = clips.filter((c) => c.kind === 'digits');
  const lengthOf = (clip: (typeof clips)[number]): Expectation[] => [{ kind: 'digits', minLength: countDigits(clip.text), maxLength: countDigits(clip.text) }];
  const figures = { without_length: new CallFigures(), with_length: new CallFigures() };
  for (const line of lines) {
    const heard = digitClips.map((clip) => (line.dbfs === undefined ? clip.pcm : withLineNoise(clip.pcm, line.dbfs, lineTailMs)));
    const pcm = band === 'wide' ? heard : await Promise.all(heard.map(throughTelephoneChannel));
    for (const [name, expectations] of [['without_length', () => expectationsOf.digits], ['with_length', lengthOf]] as const) {
      const { texts } = await streamAnswers(
        agentEngine,
        digitClips.map((clip, i) => ({ pcm: pcm[i]!, expectations: expectations(clip) })),
        {},
        { realTime: false, callerSampleRate: band === 'wide' ? 16000 : 8000, trailingSilenceMs: line.dbfs === undefined ? lineTailMs : 0 },
      );
      digitClips.forEach((clip, i) => figures[name].addWords(clip.fold, wordErrors(clip.text, texts[i]!)));
    }
  }
  return { without_length: figures.without_length.report().word_errors, with_length: figures.with_length.report().word_errors };
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

const engine = new PocketSphinxEngine({ detectTelephoneBand });
const wholeFile: Hear = (pcm, expectations) => engine.transcribe(pcm, { expectations });
/** Decodes as the agent stacks' recognizers do (src/agent/stack/asr-arguments.ts). */
const agentEngine = new PocketSphinxEngine({ extraArguments: streamingAsrArguments, detectTelephoneBand });
const report: Record<string, unknown> = { load_average_at_start: loadavg().map((v) => Math.round(v * 100) / 100) };
/** Each section is also printed to stderr as it completes, so a run cut short still leaves its figures. */
async function section(name: string, run: () => Promise<unknown>): Promise<void> {
  report[name] = await run();
  console.error(JSON.stringify({ [name]: report[name] }));
}
const sections: Array<[string, () => Promise<unknown>, boolean]> = [
  ['wer_16k', () => werByKind(engine, 'wide'), true],
  ['wer_16k_streaming', () => streamingWer(agentEngine, 'wide'), true],
  ['false_accepts', () => falseAccepts(wholeFile, 'wide'), true],
  ['end_of_speech_to_final_with_expectations', () => finalLatency(), true],
  ['as_a_call_hears_them_16k', () => asACallHearsThem('wide'), true],
  ['ivr_calls', () => ivrCalls(), false],
  ['as_a_call_hears_them_8k', () => asACallHearsThem('telephone'), false],
  ['digits_with_the_prompts_length_16k', () => digitsWithThePromptsLength('wide'), true],
  ['digits_with_the_prompts_length_8k', () => digitsWithThePromptsLength('telephone'), false],
  ['wer_8k', () => werByKind(engine, 'telephone'), false],
  ['false_accepts_8k', () => falseAccepts(wholeFile, 'telephone'), false],
  ['wer_8k_streaming', () => streamingWer(agentEngine, 'telephone'), false],
  ['wer_8k_telephone_band', () => werByKind(engine, 'telephone-band'), false],
];
try {
  for (const [name, run, inQuick] of sections) {
    if (only ? only.includes(name) : inQuick || !quick) await section(name, run);
  }
  report.load_average_at_end = loadavg().map((v) => Math.round(v * 100) / 100);
  console.log(JSON.stringify(report));
} finally {
  await Promise.all([engine.shutdown(), agentEngine.shutdown()]);
}
