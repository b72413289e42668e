import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { encodeWav, parseWav } from '../../src/audio/index.js';
import { spanAttributePattern } from '../../src/tracing/index.js';
import { SqliteCallStore } from '../../src/agent/index.js';
import { startCollector } from '../support/otlp-collector.js';
import { shoalEntry } from '../support/shoal-entry.js';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'shoal-talk-'));
const fixture = (name: string) => new URL(`../fixtures/calls/${name}`, import.meta.url).pathname;

describe('shoal talk', () => {
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  // Balanced: agent-conversation runs the same call in low-latency mode in-process.
  it('plays a mu-law 8 kHz call into the receptionist, prints one JSON object per turn and writes the aligned reply', async () => {
    const out = join(dir, 'reply.wav');
    const unrecorded = join(dir, 'unrecorded');
    const { stdout } = await run('node', [shoalEntry(), 'talk', '--in', fixture('booking-8k-ulaw.wav'), '--out', out, '--json', '--fast', '--mode', 'balanced', '--data-dir', unrecorded, '--no-call-records'], {
      timeout: 240_000,
    });
    const turns = stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(turns.length).toBeGreaterThanOrEqual(4);
    for (const turn of turns) {
      expect(Object.keys(turn).sort()).toEqual(['agent_text', 'interrupted', 'metrics', 'turn', 'user_text']);
    }
    expect(turns.filter((t) => t.user_text !== '').length).toBe(3);
    const caller = parseWav(readFileSync(fixture('booking-8k-ulaw.wav')));
    const reply = parseWav(readFileSync(out));
    expect(reply.sampleRate).toBe(8000);
    expect(reply.samples.length).toBeGreaterThanOrEqual(caller.samples.length);
    // The greeting starts the call: the agent's track has sound within its first half second.
    const firstSound = reply.samples.findIndex((s) => Math.abs(s) > 500);
    expect(firstSound).toBeGreaterThanOrEqual(0);
    expect(firstSound / 8000).toBeLessThan(0.5);
    expect(existsSync(unrecorded)).toBe(false);
  }, 300_000);

  it('prints a readable transcript per turn and, with OTEL_EXPORTER_OTLP_ENDPOINT set, delivers the call\'s spans (one trace) to an OTLP collector', async () => {
    // The first caller turn is enough for every span (the greeting and the reply are spoken): the call's first 4.5 s.
    const support = parseWav(readFileSync(fixture('support-16k.wav')));
    const firstTurn = join(dir, 'support-first-turn.wav');
    writeFileSync(firstTurn, encodeWav(support.samples.subarray(0, 4.5 * support.sampleRate), support.sampleRate));
    const collector = await startCollector();
    try {
      const records = join(dir, 'records');
      const { stdout } = await run('node', [shoalEntry(), 'talk', '--in', firstTurn, '--agent', 'support', '--fast', '--data-dir', records], {
        timeout: 240_000,
        env: { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_SERVICE_NAME: 'talk-under-test' },
      });
      expect(stdout).toMatch(/turn 1\ncaller: .*account/);
      expect(stdout).toMatch(/call ended \(.*\) after [\d.]+ s: \d+ turns/);
      const traceId = /trace ([0-9a-f]{32})/.exec(stdout)?.[1];
      // The call's record, in --data-dir: the same trace, the turns printed, how it ended.
      const store = new SqliteCallStore(records);
      const [call] = (await store.list({})).calls;
      const record = await store.get(call!.id);
      await store.close();
      const ended = /call ended \((.*)\) after [\d.]+ s: (\d+) turns/.exec(stdout)!;
      expect(record).toMatchObject({ agent: 'support', traceId, transport: { kind: 'file' }, finished: true, endedBy: ended[1] });
      expect(record!.entries.filter((entry) => entry.kind === 'turn')).toHaveLength(Number(ended[2]));
      expect(record!.entries.find((entry) => entry.kind === 'turn' && /account/.test(entry.userText))).toBeDefined();
      const resources = collector.exports.flatMap((e) => e.resourceSpans);
      const serviceNames = new Set(resources.map((r) => r.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue));
      expect([...serviceNames]).toEqual(['talk-under-test']);
      const spans = resources.flatMap((r) => r.scopeSpans.flatMap((scope) => scope.spans));
      const names = new Set(spans.map((span) => span.name));
      for (const name of ['call', 'turn', 'asr', 'dialogue', 'tts', 'tts.live']) expect(names).toContain(name);
      expect(new Set(spans.map((span) => span.traceId))).toEqual(new Set([traceId]));
      const attributes = new Set(spans.flatMap((span) => (span.attributes ?? []).map((a) => a.key)).filter((key) => key.startsWith('shoal.')));
      expect([...attributes].filter((key) => !spanAttributePattern.test(key))).toEqual([]);
    } finally {
      await new Promise((resolve) => collector.server.close(resolve));
    }
  }, 300_000);

  it('hears an 8 kHz phone call of real human answers as the telephony path does, and the script routes it', async () => {
    const { stdout } = await run(
      'node',
      [shoalEntry(), 'talk', '--script', 'examples/scripts/parcel-line.yaml', '--in', 'test/fixtures/human-calls/parcel-8k-ulaw.wav', '--json', '--fast'],
      { timeout: 240_000 },
    );
    const turns = stdout.trim().split('\n').map((line) => JSON.parse(line) as { user_text: string; agent_text: string });
    // "stop" was heard as "stop him" by recognition on the service, and the script asked "Did you say stop?".
    expect(turns.map((t) => t.user_text).filter(Boolean).at(-1)).toBe('stop');
    expect(turns.at(-1)!.agent_text).toBe('Thank you. Goodbye.');
  }, 300_000);

  it('a missing input file is a clear error and writes nothing', async () => {
    const out = join(dir, 'never.wav');
    const failure = await run('node', [shoalEntry(), 'talk', '--in', join(dir, 'missing.wav'), '--out', out]).catch((error: { code: number; stderr: string }) => error);
    expect((failure as { code: number }).code).toBe(1);
    expect((failure as { stderr: string }).stderr).toMatch(/cannot read --in .*missing\.wav: ENOENT/);
    expect(existsSync(out)).toBe(false);
  });

  it('an unknown agent names the ones that exist', async () => {
    const failure = await run('node', [shoalEntry(), 'talk', '--in', fixture('support-16k.wav'), '--agent', 'nobody']).catch((error: { code: number; stderr: string }) => error);
    expect((failure as { stderr: string }).stderr).toMatch(/unknown agent "nobody"; available: .*receptionist/);
  });
});
