import { describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { FakeOpenAiServer, says, callsTools } from '../support/fake-openai-server.js';
import { exampleCommand } from '../support/shoal-entry.js';

const run = promisify(execFile);
const root = join(import.meta.dirname, '../..');
const tsx = join(root, 'node_modules', '.bin', 'tsx');
const env = { ...process.env, LIVEKIT_URL: '', LIVEKIT_API_KEY: '', LIVEKIT_API_SECRET: '' };
// The examples as compiled once for the run (test/support/compiled-tree.ts); one also runs as the README says, through tsx.
const runExample = (name: string, options: { env: NodeJS.ProcessEnv; timeout: number }) => {
  const { file, args } = exampleCommand(name);
  return run(file, args, { cwd: root, ...options });
};

describe('examples', () => {
  it('recorded-call plays the booking call into the receptionist', async () => {
    const { stdout } = await runExample('recorded-call', { env, timeout: 120_000 });
    expect(stdout).toMatch(/caller: hello i would like to/);
    expect(stdout).toMatch(/agent: {2}\S/);
    expect(stdout).toMatch(/turns, ended: caller said goodbye/);
  }, 150_000);

  it('custom-dialogue answers every turn and ends the call on goodbye', async () => {
    const { stdout } = await runExample('custom-dialogue', { env, timeout: 120_000 });
    const turns = stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { user: string; agent: string });
    expect(turns.some((turn) => /^It is \d/.test(turn.agent))).toBe(true);
    expect(turns.at(-1)!.agent).toBe('Goodbye!');
    expect(stdout).toMatch(/call ended: dialogue ended the call/);
  }, 150_000);

  it('llm-agent says what to set without LLM_URL', async () => {
    const failure = await run(tsx, ['examples/llm-agent.ts'], { cwd: root, env: { ...env, LLM_URL: '' }, timeout: 60_000 }).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 2 });
    expect((failure as { stderr: string }).stderr).toMatch(/Set LLM_URL to an OpenAI-compatible base URL/);
  }, 90_000);

  it('llm-agent books a table through its tools with an OpenAI-compatible server (a fake one here)', async () => {
    const fake = await new FakeOpenAiServer().start();
    // The fake model checks availability on the first turn, books on the second, and says goodbye after.
    let turn = 0;
    fake.fallback = (res, request) => {
      const last = request.body.messages!.at(-1)!;
      if (last.role === 'tool') return says(turn === 1 ? 'We have a table, may I have your name?' : 'You are booked, see you tonight.')(res, request);
      turn++;
      if (turn === 1) return callsTools([{ id: 'c1', name: 'check_availability', arguments: { party: 2, time: '7 pm' } }])(res, request);
      if (turn === 2) return callsTools([{ id: 'c2', name: 'book_table', arguments: { party: 2, time: '7 pm', name: 'Sam' } }])(res, request);
      return callsTools([{ id: 'c3', name: 'end_call', arguments: { reason: 'done' } }], 'Goodbye!')(res, request);
    };
    try {
      const { stdout } = await runExample('llm-agent', { env: { ...env, LLM_URL: fake.baseUrl }, timeout: 120_000 });
      expect(stdout).toMatch(/tool: {3}check_availability \{"party":2,"time":"7 pm"\} -> \{"available":true/);
      expect(stdout).toMatch(/tool: {3}book_table .* -> \{"reference":"B101"/);
      expect(stdout).toMatch(/bookings: \[\["B101",\{"party":2,"time":"7 pm","name":"Sam"\}\]\]/);
      expect(fake.seen[0]!.body.messages![0]).toMatchObject({ role: 'system', content: expect.stringMatching(/receptionist of Luigi's/) });
    } finally {
      await fake.close();
    }
  }, 150_000);

  it('livekit-room says what to set when no LiveKit server is configured', async () => {
    const failure = await runExample('livekit-room', { env, timeout: 60_000 }).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 2 });
    expect((failure as { stderr: string }).stderr).toMatch(/Set LIVEKIT_URL, LIVEKIT_API_KEY and LIVEKIT_API_SECRET/);
  }, 90_000);

  it('livekit-worker says what to set when no LiveKit server is configured', async () => {
    const failure = await runExample('livekit-worker', { env, timeout: 60_000 }).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 2 });
    expect((failure as { stderr: string }).stderr).toMatch(/Set LIVEKIT_URL, LIVEKIT_API_KEY and LIVEKIT_API_SECRET/);
  }, 90_000);
});
