import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { SqliteCallStore } from '../../src/agent/index.js';
import { shoalEntry } from '../support/shoal-entry.js';

const run = promisify(execFile);

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

async function shoalTest(args: string[]): Promise<Outcome> {
  try {
    const { stdout, stderr } = await run('node', [shoalEntry(), 'test', ...args], { timeout: 240_000, maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failure = error as { code: number; stdout: string; stderr: string };
    return { code: failure.code, stdout: failure.stdout, stderr: failure.stderr };
  }
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'shoal-test-cli-'));
});

describe('shoal test', () => {
  it('documents itself in --help', async () => {
    const { code, stdout } = await shoalTest(['--help']);
    expect(code).toBe(0);
    for (const option of ['--json', '--junit <file>', '--runs <n>', '--seed <s>', '--grep <text>', '--record <dir>', '--concurrency <n>', '--service-url <url>', '--judge-url <url>', '--llm-url <url>', '--llm-model <name>', '--llm-key <key>'])
      expect(stdout).toContain(option);
    expect(stdout).toMatch(/Exit status: 0 every scenario passed, 1 one failed, 2 a file or option cannot be used/);
  });

  it('exits 2 with the file, line and key of a bad scenario file, and no stack trace', async () => {
    const file = join(dir, 'bad.yaml');
    await writeFile(file, 'agent: receptionist\nscenarios:\n  - name: typo\n    steps:\n      - say: hello\n        expect: { within: 300 }\n');
    const { code, stdout, stderr } = await shoalTest([file]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.trim()).toBe(`shoal test: ${file}:6: scenarios[0].steps[0].expect.within: unknown key (see schemas/scenario.schema.json)`);
  });

  it('exits 2, not 1, on a mistyped option or value, with what is wrong', async () => {
    const file = join(dir, 'fine.yaml');
    await writeFile(file, 'agent: echo\nscenarios:\n  - name: x\n    steps: [{ say: hello }]\n');
    const runs = await shoalTest([file, '--runs', 'abc']);
    expect(runs.code).toBe(2);
    expect(runs.stderr).toMatch(/option '--runs <n>' argument 'abc' is invalid\. expected a whole number above 0/);
    const typo = await shoalTest([file, '--llm-urll', 'http://127.0.0.1:9/v1']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/unknown option '--llm-urll'\n\(Did you mean --llm-url\?\)/);
    const alone = await shoalTest([file, '--llm-model', 'small']);
    expect(alone).toMatchObject({ code: 2, stderr: 'shoal test: --llm-model needs --llm-url\n' });
  });

  it('exits 2 on a play: file or regex that cannot be used, naming each, before starting any engine', async () => {
    const file = join(dir, 'missing-clip.yaml');
    await writeFile(file, 'agent: echo\nscenarios:\n  - name: first\n    steps: [{ say: hello }]\n  - name: plays a clip\n    steps:\n      - play: clips/none.wav\n        expect: { says: "/(/" }\n');
    const { code, stdout, stderr } = await shoalTest([file]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.trim().split('\n')).toEqual([`shoal test: ${file}:8: scenarios[1].steps[0].expect.says: not a valid regular expression: Invalid regular expression: /(/: Unterminated group`]);
    await writeFile(file, 'agent: echo\nscenarios:\n  - name: first\n    steps: [{ say: hello }]\n  - name: plays a clip\n    steps:\n      - play: clips/none.wav\n');
    const missing = await shoalTest([file]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(`shoal test: ${file}:7: scenarios[1].steps[0].play: no such file: ${join(dir, 'clips/none.wav')} (scenario "plays a clip")\n`);
  });

  it('exits 2 on an agent that does not exist, before starting any engine', async () => {
    const file = join(dir, 'nobody.yaml');
    await writeFile(file, 'agent: nobody\nscenarios:\n  - name: x\n    steps: [{ say: hello }]\n');
    const { code, stderr } = await shoalTest([file]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/unknown agent "nobody"; available: receptionist, support, echo/);
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it('runs scenario and Pipecat Evals files, exits 1 on a failure, writes JSON lines, JUnit and the failing call', async () => {
    const suite = join(dir, 'suite.yaml');
    await writeFile(
      suite,
      `agent: receptionist
scenarios:
  - name: expects the wrong hours
    steps:
      - say: when are you open
        expect: { says: midnight }
`,
    );
    const pipecat = join(dir, 'pipecat.yaml');
    await writeFile(pipecat, 'name: pipecat_greeting\nturns:\n  - expect:\n      - event: response\n        text_contains: "Harbour Kitchen"\n');
    const junit = join(dir, 'results.xml');
    const recordings = join(dir, 'failed');
    const page = join(dir, 'report.html');
    const { code, stdout, stderr } = await shoalTest([suite, pipecat, '--agent', 'receptionist', '--json', '--junit', junit, '--record', recordings, '--report', page]);
    expect(stderr).toMatch(/recorded .*expects-the-wrong-hours--seed-1\.wav/);
    expect(code).toBe(1);
    const lines = stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    const records = lines.slice(0, -1);
    const { report } = lines.at(-1) as { report: { suite: Record<string, unknown>; scenarios: Array<Record<string, unknown>> } };
    expect(report.suite).toMatchObject({ scenarios: 2, runs: 2, passed: 1, errors: 0, pass_rate: 0.5, barged_in: 0, talked_over: 0 });
    expect(report.scenarios.map((scenario) => [scenario['name'], scenario['pass_rate']])).toEqual([
      ['expects the wrong hours', 0],
      ['pipecat_greeting', 1],
    ]);
    expect(report.scenarios[0]!['failing']).toEqual([{ seed: 1, failures: [{ step: 1, message: expect.stringMatching(/^says midnight/) }] }]);
    const html = await readFile(page, 'utf8');
    expect(html).toContain('says midnight: the agent said');
    expect(html).toMatch(/<audio controls preload="none" src="data:audio\/wav;base64,UklGR/);
    expect(records.map((record) => [record['name'], record['passed']])).toEqual([
      ['expects the wrong hours', false],
      ['pipecat_greeting', true],
    ]);
    for (const record of records) {
      expect(Object.keys(record)).toEqual(['name', 'file', 'passed', 'failures', 'turns', 'duration_ms', 'wall_ms', 'speedup', 'seed', 'v2v_ms', 'skipped', 'judged', 'barged_in', 'talked_over', 'tool_calls']);
      expect(record['turns']).toBeGreaterThanOrEqual(1);
      expect(record['duration_ms']).toBeGreaterThan(1000);
    }
    expect(records[0]!['file']).toBe(suite);
    expect(records[0]!['failures']).toEqual([{ step: 1, message: `says midnight: the agent said "We're open every day from noon until eleven p m."` }]);

    const xml = await readFile(junit, 'utf8');
    expect(xml).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites name="shoal test" tests="2" failures="1" errors="0">/);
    expect(xml).toMatch(/<testsuite name="[^"]*suite\.yaml" tests="1" failures="1" errors="0" skipped="0" time="[\d.]+">\n {4}<properties><property name="pass_rate" value="0.000"\/><property name="v2v_p50_ms" value="\d+"\/>/);
    expect(xml.match(/<testcase /g)).toHaveLength(2);
    expect(xml).toMatch(/<testcase classname="[^"]*suite\.yaml" name="expects the wrong hours" time="[\d.]+">\n {6}<properties>.*<\/properties>\n {6}<failure message="step 1: says midnight: the agent said &quot;We&apos;re open/);
    expect(xml.match(/<failure /g)).toHaveLength(1);

    const written = (await readdir(recordings)).filter((name) => name.endsWith('.wav'));
    expect(written).toEqual(['suite--expects-the-wrong-hours--seed-1.wav']);
    // Every call (passed or not) left its record beside the recordings: shoal calls list --data-dir DIR.
    const store = new SqliteCallStore(recordings);
    const calls = (await store.list({})).calls;
    expect(calls.map((call) => [call.agent, call.finished, call.turns > 0]).sort()).toEqual([
      ['receptionist', true, true],
      ['receptionist', true, true],
    ]);
    const kept = await Promise.all(calls.map((call) => store.get(call.id)));
    await store.close();
    expect(kept.flatMap((record) => record!.entries).some((entry) => entry.kind === 'turn' && entry.agentText.includes('noon until eleven'))).toBe(true);
    const wav = await readFile(join(recordings, written[0]!));
    expect(wav.readUInt16LE(22)).toBe(2);
    expect(wav.readUInt32LE(24)).toBe(8000);
    expect(wav.readUInt32LE(40)).toBe(wav.length - 44);
    expect(wav.length - 44).toBeGreaterThan(8000 * 4 * 4); // stereo 16-bit: 4 bytes a frame, over 4 s
  }, 240_000);
});
