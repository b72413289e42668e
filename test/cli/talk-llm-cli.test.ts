import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeWav, parseWav } from '../../src/audio/index.js';
import { FakeOpenAiServer, says } from '../support/fake-openai-server.js';
import { shoalEntry } from '../support/shoal-entry.js';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'shoal-talk-llm-'));
const fixture = (name: string) => new URL(`../fixtures/calls/${name}`, import.meta.url).pathname;
const fake = new FakeOpenAiServer();

beforeAll(async () => {
  await fake.start();
  // An echoing model: each reply repeats the caller's last words, so the transcript shows the conversation went through it.
  fake.fallback = (res, request) => says(`You said ${String(request.body.messages?.at(-1)?.content)}.`)(res, request);
});
afterAll(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('shoal talk --llm-url', () => {
  it('drives a conversation with an OpenAI-compatible server: instructions, growing history, the call\'s trace on every request', async () => {
    const instructions = join(dir, 'instructions.txt');
    writeFileSync(instructions, 'You are the support line of Acme Bank. Be brief.\n');
    // The support call's first two caller turns (its first 9 s of 13): two requests, the second with more history.
    const call = parseWav(readFileSync(fixture('support-16k.wav')));
    const twoTurns = join(dir, 'two-turns.wav');
    writeFileSync(twoTurns, encodeWav(call.samples.subarray(0, 9 * call.sampleRate), call.sampleRate));
    const { stdout } = await run(
      'node',
      [shoalEntry(), 'talk', '--in', twoTurns, '--fast', '--llm-url', fake.baseUrl, '--llm-model', 'local-model', '--llm-key', 'sk-local', '--instructions', instructions],
      { timeout: 240_000 },
    );
    expect(stdout).toMatch(/caller: what is my account balance\nagent: {2}You said what is my account balance\./);
    const traceId = /trace ([0-9a-f]{32})/.exec(stdout)?.[1];
    expect(traceId).toBeDefined();
    expect(stdout).toMatch(/caller: please transfer me to a human agent\nagent: {2}You said please transfer me to a human agent\./);
    expect(fake.seen.length).toBeGreaterThanOrEqual(2);
    for (const [index, request] of fake.seen.entries()) {
      expect(request.path).toBe('/v1/chat/completions');
      expect(request.headers.authorization).toBe('Bearer sk-local');
      expect(request.headers.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
      expect(request.body).toMatchObject({ model: 'local-model', stream: true });
      expect(request.body.messages![0]).toEqual({ role: 'system', content: 'You are the support line of Acme Bank. Be brief.' });
      if (index > 0) expect(request.body.messages!.length).toBeGreaterThan(fake.seen[index - 1]!.body.messages!.length);
    }
  }, 300_000);

  it('refuses an --llm-url that is not a URL, and --llm-model without --llm-url', async () => {
    const notUrl = await run('node', [shoalEntry(), 'talk', '--in', fixture('support-16k.wav'), '--llm-url', 'localhost:8080']).catch((error: { stderr: string }) => error);
    expect((notUrl as { stderr: string }).stderr).toMatch(/--llm-url.*expected the base URL of an OpenAI-compatible API/);
    const stray = await run('node', [shoalEntry(), 'talk', '--in', fixture('support-16k.wav'), '--llm-model', 'x']).catch((error: { stderr: string }) => error);
    expect((stray as { stderr: string }).stderr).toMatch(/--llm-model needs --llm-url/);
  }, 120_000);
});
