import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MediaStreamCaller } from '../../src/transports/index.js';
import { shoalEntry } from '../support/shoal-entry.js';

const root = join(import.meta.dirname, '../..');
/** One second of mu-law silence (0xff), played as 20 ms frames in real time. */
const oneSecond = new Uint8Array(8000).fill(0xff);

describe('shoal agent on SIGTERM', () => {
  it('stops taking calls, lets the call in progress go on until the caller hangs up, then exits 0', async () => {
    const child = spawn(process.execPath, [shoalEntry(), 'agent', '--port', '0', '--drain-timeout', '60000', '--log-level', 'silent'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      let stdout = '';
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no URL line; got ${stdout}`)), 90_000);
        child.stdout.on('data', (chunk: Buffer) => {
          stdout += chunk.toString();
          const match = /open (http:\/\/\S+) and press/.exec(stdout);
          if (match) {
            clearTimeout(timer);
            resolve(match[1]!);
          }
        });
        void exited.then((code) => reject(new Error(`exited early with ${code}: ${stdout}`)));
      });
      const caller = await MediaStreamCaller.connect(`${url.replace(/^http/, 'ws')}telephony`);
      await caller.play(oneSecond);

      child.kill('SIGTERM');
      const signalledAt = performance.now();
      await expect.poll(async () => (await fetch(`${url}readyz`)).status, { timeout: 5000 }).toBe(503);
      await caller.play(oneSecond);
      expect(caller.open).toBe(true);
      expect(child.exitCode).toBeNull();

      await caller.hangUp();
      expect(await exited).toBe(0);
      expect(performance.now() - signalledAt).toBeGreaterThanOrEqual(1000);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 120_000);
});
