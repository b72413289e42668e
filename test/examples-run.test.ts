import { describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..');
const tsx = join(root, 'node_modules', '.bin', 'tsx');
const env = { ...process.env, LIVEKIT_URL: '', LIVEKIT_API_KEY: '', LIVEKIT_API_SECRET: '' };

describe('examples', () => {
  it('recorded-call plays the booking call into the receptionist', async () => {
    const { stdout } = await run(tsx, ['examples/recorded-call.ts'], { cwd: root, env, timeout: 120_000 });
    expect(stdout).toMatch(/caller: hello i would like to/);
    expect(stdout).toMatch(/agent: {2}\S/);
    expect(stdout).toMatch(/turns, ended: caller said goodbye/);
  }, 150_000);

  it('custom-dialogue answers every turn and ends the call on goodbye', async () => {
    const { stdout } = await run(tsx, ['examples/custom-dialogue.ts'], { cwd: root, env, timeout: 120_000 });
    const turns = stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { user: string; agent: string });
    expect(turns.some((turn) => /^It is \d/.test(turn.agent))).toBe(true);
    expect(turns.at(-1)!.agent).toBe('Goodbye!');
    expect(stdout).toMatch(/call ended: dialogue ended the call/);
  }, 150_000);

  it('livekit-room says what to set when no LiveKit server is configured', async () => {
    const failure = await run(tsx, ['examples/livekit-room.ts'], { cwd: root, env, timeout: 60_000 }).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 2 });
    expect((failure as { stderr: string }).stderr).toMatch(/Set LIVEKIT_URL, LIVEKIT_API_KEY and LIVEKIT_API_SECRET/);
  }, 90_000);

  it('livekit-worker says what to set when no LiveKit server is configured', async () => {
    const failure = await run(tsx, ['examples/livekit-worker.ts'], { cwd: root, env, timeout: 60_000 }).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 2 });
    expect((failure as { stderr: string }).stderr).toMatch(/Set LIVEKIT_URL, LIVEKIT_API_KEY and LIVEKIT_API_SECRET/);
  }, 90_000);
});
