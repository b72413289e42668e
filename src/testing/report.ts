import { relative } from 'node:path';
import type { CallLog } from './call-log.js';
import type { ScenarioResult } from './runner.js';
import { figuresOf, type RunFigures, type SuiteReport } from './suite-report.js';

/** One line of a call's transcript: when (call clock), the step it belongs to, who, and what. */
export interface TranscriptLine {
  atMs: number;
  step?: number;
  who: 'caller' | 'heard' | 'agent' | 'tool' | 'call';
  text: string;
}

/** The call as a readable transcript: the caller's actions, what the agent heard, said and did. */
export function transcript(log: CallLog): TranscriptLine[] {
  const stepAt = (atMs: number) => {
    const index = log.windows.findLastIndex((window) => window.startMs <= atMs);
    return index < 0 ? undefined : index + 1;
  };
  const lines: TranscriptLine[] = [];
  for (const window of log.windows) {
    if (window.action && window.actionStartMs !== undefined) lines.push({ atMs: window.actionStartMs, step: window.step + 1, who: 'caller', text: window.action });
  }
  for (const turn of log.conversation?.turns ?? []) {
    lines.push({ atMs: turn.heardAtMs, who: 'caller', text: `heard "${turn.heard}"` });
    if (turn.window?.actionStartMs !== undefined) lines.push({ atMs: turn.window.actionStartMs, who: 'caller', text: turn.window.action ?? '' });
  }
  if (log.conversation) {
    const { ending, reason } = log.conversation;
    const at = log.conversation.turns.at(-1)?.window?.endMs ?? log.conversation.turns.at(-1)?.heardAtMs ?? 0;
    lines.push({ atMs: at, who: 'caller', text: `ended its conversation: ${ending.replace('_', ' ')}${reason ? ` (${reason})` : ''}` });
  }
  for (const turn of log.turns) {
    const report = turn.report;
    if (!report) continue;
    const atMs = turn.startMs ?? turn.reportMs!;
    const v2v = report.metrics.voiceToVoiceMs;
    const notes = [turn.startMs === undefined ? 'no audio' : undefined, report.interrupted ? 'interrupted' : undefined, v2v !== undefined ? `agent's v2v ${Math.round(v2v)} ms` : undefined].filter(Boolean);
    lines.push({ atMs, step: stepAt(atMs), who: 'agent', text: `"${report.agentText}"${notes.length ? ` (${notes.join(', ')})` : ''}` });
  }
  for (const { atMs, event } of log.events) {
    if (event.type === 'transcript' && event.final) lines.push({ atMs, step: stepAt(atMs), who: 'heard', text: `"${event.text}"` });
    else if (event.type === 'keypad-entry') lines.push({ atMs, step: stepAt(atMs), who: 'heard', text: `keys ${event.digits}` });
    else if (event.type === 'tool-call' && event.kept) lines.push({ atMs, step: stepAt(atMs), who: 'tool', text: `${event.name} ${JSON.stringify(event.arguments)}` });
    else if (event.type === 'error') lines.push({ atMs, step: stepAt(atMs), who: 'call', text: `error in ${event.stage}: ${event.message}` });
  }
  lines.push({ atMs: log.endMs, step: stepAt(log.endMs), who: 'call', text: `ended by the ${log.endedBy} (${log.summary.reason})` });
  const order: TranscriptLine['who'][] = ['caller', 'heard', 'tool', 'agent', 'call'];
  return lines.sort((a, b) => a.atMs - b.atMs || order.indexOf(a.who) - order.indexOf(b.who));
}

export function formatTranscript(lines: readonly TranscriptLine[]): string {
  return lines.map((line) => `      ${(line.atMs / 1000).toFixed(2).padStart(6)}s  ${line.step !== undefined ? `[${line.step}]` : '   '} ${line.who.padEnd(6)} ${line.text}`).join('\n');
}

function shown(file: string | undefined): string {
  if (!file) return '(in code)';
  const near = relative(process.cwd(), file);
  return near && !near.startsWith('..') ? near : file;
}

/** `✓ name (file)  12.1 s call in 0.9 s, 13.4x` */
export function resultLine(result: ScenarioResult): string {
  if (result.error !== undefined) return `! ${result.name}  (${shown(result.file)}, seed ${result.seed}; error: ${result.error})`;
  const mark = result.passed ? '✓' : '✗';
  const timing = `${(result.durationMs / 1000).toFixed(1)} s call in ${(result.wallMs / 1000).toFixed(1)} s, ${result.speedup.toFixed(1)}x`;
  const skipped = result.skipped.length ? `, ${result.skipped.length} judge skipped` : '';
  return `${mark} ${result.name}  (${shown(result.file)}, seed ${result.seed}; ${timing}${skipped})`;
}

/** The failures of a result, each with the transcript around its step. */
export function failureReport(result: ScenarioResult): string {
  const lines = result.log ? transcript(result.log) : [];
  const parts: string[] = [];
  for (const failure of result.failures) {
    parts.push(`    ${failure.step !== undefined ? `step ${failure.step}` : 'call'}: ${failure.message}`);
    const around = failure.step === undefined ? lines.slice(-12) : lines.filter((line) => line.step !== undefined && Math.abs(line.step - failure.step!) <= 1);
    if (around.length) parts.push(formatTranscript(around));
  }
  return parts.join('\n');
}

/** The `--json` record of a result. */
export function resultRecord(result: ScenarioResult): Record<string, unknown> {
  return {
    name: result.name,
    file: result.file ?? null,
    passed: result.passed,
    failures: result.failures.map((failure) => ({ step: failure.step ?? null, message: failure.message })),
    turns: result.turns,
    duration_ms: Math.round(result.durationMs),
    wall_ms: Math.round(result.wallMs),
    speedup: Number(result.speedup.toFixed(2)),
    seed: result.seed,
    v2v_ms: result.v2v.map((entry) => ({ step: entry.step, ms: Math.round(entry.ms) })),
    skipped: result.skipped,
    judged: result.judged.map((entry) => ({ step: entry.step ?? null, criterion: entry.criterion, verdict: entry.verdict, reason: entry.reason })),
    barged_in: result.stats.bargedIn,
    talked_over: result.stats.talkedOver,
    tool_calls: result.stats.toolCalls,
    ...(result.stats.callerEnding ? { caller: { lines: result.stats.callerLines, ending: result.stats.callerEnding } } : {}),
    ...(result.error !== undefined ? { error: result.error } : {}),
  };
}

/** The `--json` suite report (the last line), snake_case. */
export function reportRecord(report: SuiteReport): Record<string, unknown> {
  const figures = (entry: RunFigures) => ({
    runs: entry.runs,
    passed: entry.passed,
    errors: entry.errors,
    pass_rate: Number(entry.passRate.toFixed(3)),
    turns: { min: entry.turns.min, max: entry.turns.max, mean: Number(entry.turns.mean.toFixed(2)) },
    v2v_ms: { p50: entry.v2vMs.p50 ?? null, p95: entry.v2vMs.p95 ?? null, count: entry.v2vMs.count },
    barged_in: entry.bargedIn,
    talked_over: entry.talkedOver,
    tool_calls: entry.toolCalls,
    judged: entry.judged,
    ...(entry.callerEndings ? { caller_endings: entry.callerEndings } : {}),
  });
  return {
    report: {
      suite: { scenarios: report.suite.scenarios, ...figures(report.suite) },
      scenarios: report.scenarios.map((scenario) => ({ name: scenario.name, file: scenario.file ?? null, ...figures(scenario), failing: scenario.failing })),
    },
  };
}

const xml = (text: string) => text.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!).replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');

/** JUnit properties: the figures of a set of runs. */
function properties(figures: RunFigures, indent: string): string {
  const values: Array<[string, string | number | undefined]> = [
    ['pass_rate', figures.passRate.toFixed(3)],
    ['v2v_p50_ms', figures.v2vMs.p50],
    ['v2v_p95_ms', figures.v2vMs.p95],
    ['turns_mean', figures.turns.mean.toFixed(2)],
    ['barged_in', figures.bargedIn],
    ['talked_over', figures.talkedOver],
    ['tool_calls', Object.entries(figures.toolCalls).map(([name, count]) => `${name}:${count}`).join(' ') || undefined],
    ['judge_skipped', figures.judged.skipped || undefined],
    ['judge_maybe', figures.judged.maybe || undefined],
  ];
  const shownValues = values.filter(([, value]) => value !== undefined);
  return `${indent}<properties>${shownValues.map(([name, value]) => `<property name="${name}" value="${xml(String(value))}"/>`).join('')}</properties>`;
}

/**
 * JUnit XML: a testsuite per file (its figures as properties), a testcase per scenario run (its own), a failure
 * element with the transcript, an error element for a run that threw.
 */
export function junitXml(results: readonly ScenarioResult[]): string {
  const byFile = new Map<string, ScenarioResult[]>();
  for (const result of results) {
    const key = shown(result.file);
    byFile.set(key, [...(byFile.get(key) ?? []), result]);
  }
  const suites = [...byFile].map(([file, cases]) => {
    const errors = cases.filter((result) => result.error !== undefined).length;
    const failures = cases.filter((result) => !result.passed).length - errors;
    const seconds = cases.reduce((sum, result) => sum + result.wallMs, 0) / 1000;
    const body = cases
      .map((result) => {
        const name = xml(result.name + (cases.filter((other) => other.name === result.name).length > 1 ? ` (seed ${result.seed})` : ''));
        const open = `    <testcase classname="${xml(file)}" name="${name}" time="${(result.wallMs / 1000).toFixed(3)}">\n${properties(figuresOf([result]), '      ')}`;
        if (result.error !== undefined) return `${open}\n      <error message="${xml(result.error)}" type="ScenarioError"/>\n    </testcase>`;
        if (result.passed) return `${open}\n    </testcase>`;
        const message = xml(result.failures.map((failure) => `${failure.step !== undefined ? `step ${failure.step}: ` : ''}${failure.message}`).join('; '));
        return `${open}\n      <failure message="${message}" type="ScenarioFailure">${xml(failureReport(result))}</failure>\n    </testcase>`;
      })
      .join('\n');
    return `  <testsuite name="${xml(file)}" tests="${cases.length}" failures="${failures}" errors="${errors}" skipped="0" time="${seconds.toFixed(3)}">\n${properties(figuresOf(cases), '    ')}\n${body}\n  </testsuite>`;
  });
  const errors = results.filter((result) => result.error !== undefined).length;
  const failures = results.filter((result) => !result.passed).length - errors;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="shoal test" tests="${results.length}" failures="${failures}" errors="${errors}">\n${suites.join('\n')}\n</testsuites>\n`;
}

/** The call as a stereo WAV: the caller (as the line carried them) on the left, the agent (as heard) on the right. */
export function stereoWav(log: CallLog): Uint8Array {
  const frames = Math.max(log.callerTrack.length, log.agentTrack.length);
  const data = new Int16Array(frames * 2);
  for (let i = 0; i < frames; i++) {
    data[2 * i] = log.callerTrack[i] ?? 0;
    data[2 * i + 1] = log.agentTrack[i] ?? 0;
  }
  const bytes = new Uint8Array(44 + data.byteLength);
  const view = new DataView(bytes.buffer);
  const ascii = (offset: number, text: string) => [...text].forEach((c, i) => view.setUint8(offset + i, c.charCodeAt(0)));
  ascii(0, 'RIFF');
  view.setUint32(4, 36 + data.byteLength, true);
  ascii(8, 'WAVE');
  ascii(12, 'fmt ');
  view.setUint32(16, 16, true);
  view.setUint16(20, 1, true);
  view.setUint16(22, 2, true);
  view.setUint32(24, log.sampleRate, true);
  view.setUint32(28, log.sampleRate * 4, true);
  view.setUint16(32, 4, true);
  view.setUint16(34, 16, true);
  ascii(36, 'data');
  view.setUint32(40, data.byteLength, true);
  for (let i = 0; i < data.length; i++) view.setInt16(44 + 2 * i, data[i]!, true);
  return bytes;
}
