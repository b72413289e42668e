import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { shoalEntry } from '../support/shoal-entry.js';

const root = join(import.meta.dirname, '../..');

describe('shoal serve', () => {
  it('prints exactly "listening on http://HOST:PORT", serves with the dev key and stops cleanly on SIGTERM', async () => {
    const data = mkdtempSync(join(tmpdir(), 'shoal-serve-'));
    const child = spawn(process.execPath, [shoalEntry(), 'serve', '--port', '0', '--data', data, '--dev-key', 'sk_cli_test', '--tts-streams', '1', '--log-level', 'silent'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no listening line; got ${stdout}`)), 45_000);
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const match = /^listening on (http:\/\/127\.0\.0\.1:\d+)$/m.exec(stdout);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      });
      child.once('exit', (code) => reject(new Error(`exited early with ${code}`)));
    });
    const response = await fetch(`${url}/v1/tts`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk_cli_test', 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'Served by the command line.', format: 'wav' }),
    });
    expect(response.status).toBe(200);
    expect((await response.arrayBuffer()).byteLength).toBeGreaterThan(10_000);
    const tts = (text: string) =>
      fetch(`${url}/v1/tts`, {
        method: 'POST',
        headers: { authorization: 'Bearer sk_cli_test', 'content-type': 'application/json' },
        body: JSON.stringify({ text, format: 'wav' }),
      }).then(async (r) => (await r.arrayBuffer(), r.status));
    // --tts-streams 1: while a long response is synthesised, a second one is refused at once.
    const statuses = await Promise.all([tts('A longer answer that takes a while to say. '.repeat(12)), tts('Second.')]);
    expect(statuses.sort()).toEqual([200, 503]);
    const unauthorized = await fetch(`${url}/v1/tts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"text":"x"}' });
    expect(unauthorized.status).toBe(401);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 60_000);
});
