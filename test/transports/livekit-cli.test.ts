import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { JobStatus, WorkerStatus } from '@livekit/protocol';
import { DispatchServerDouble } from '../support/livekit-dispatch-double.js';
import { SqliteCallStore } from '../../src/agent/index.js';
import { shoalEntry } from '../support/shoal-entry.js';

let dispatch: DispatchServerDouble | undefined;
let child: ChildProcess | undefined;

afterEach(async () => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  await dispatch?.close();
  dispatch = undefined;
  child = undefined;
});

function run(args: string[], env: Record<string, string> = {}) {
  const output = { stdout: '', stderr: '' };
  const environment: NodeJS.ProcessEnv = { ...process.env, LIVEKIT_URL: '', LIVEKIT_API_KEY: '', LIVEKIT_API_SECRET: '', ...env };
  for (const name of ['LIVEKIT_URL', 'LIVEKIT_API_KEY', 'LIVEKIT_API_SECRET']) if (!environment[name]) delete environment[name];
  child = spawn(process.execPath, [shoalEntry(), 'livekit', ...args], { env: environment, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (chunk: Buffer) => (output.stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
  return { output, exited, child };
}

describe('shoal livekit', () => {
  it('says which LiveKit credentials are missing and how to give them', async () => {
    const { output, exited } = run(['--api-key', 'devkey']);
    expect(await exited).toBe(1);
    expect(output.stderr).toMatch(/LiveKit url, api secret missing: set \$LIVEKIT_URL, \$LIVEKIT_API_SECRET or pass --url, --api-secret/);
  }, 30_000);

  it('registers from the LIVEKIT_* environment and, on SIGTERM, drains within its deadline and exits 0', async () => {
    const server = await DispatchServerDouble.start();
    dispatch = server;
    const records = mkdtempSync(join(tmpdir(), 'shoal-livekit-records-'));
    const { output, exited, child: worker } = run(['--agent-name', 'receptionist', '--drain-timeout', '1000', '--max-calls', '3', '--data-dir', records], {
      LIVEKIT_URL: server.url,
      LIVEKIT_API_KEY: server.apiKey,
      LIVEKIT_API_SECRET: server.apiSecret,
    });
    await server.until(() => output.stdout.includes('taking calls'), 120_000);
    expect(server.of('register')[0]).toMatchObject({ agentName: 'receptionist' });
    expect(server.refused).toEqual([]);

    // A job whose room never answers: still joining when the drain starts, so the deadline has to end it.
    server.offer('AJ_1', 'stuck-room', 'receptionist');
    await server.until(() => server.of('availability').length);
    server.assign('AJ_1', 'stuck-room');
    await server.until(() => server.of('updateWorker').some((u) => u.load > 0));
    const signalledAt = Date.now();
    worker.kill('SIGTERM');
    await server.until(() => server.of('updateWorker').find((u) => u.status === WorkerStatus.WS_FULL));
    server.offer('AJ_2', 'late-room', 'receptionist');
    const refused = await server.until(() => server.of('availability').find((a) => a.jobId === 'AJ_2'));
    expect(refused.available).toBe(false);
    expect(await exited).toBe(0);
    expect(Date.now() - signalledAt).toBeLessThan(10_000);
    expect(server.of('updateJob').find((u) => u.jobId === 'AJ_1')).toMatchObject({ status: JobStatus.JS_FAILED });
    expect(output.stdout).toMatch(/drained: 0 calls finished, 1 ended at the deadline/);
    // The worker kept its call records in --data-dir (the job never reached a call, so there is none) and closed them.
    expect(existsSync(join(records, 'calls.sqlite'))).toBe(true);
    const store = new SqliteCallStore(records);
    expect((await store.list({})).calls).toEqual([]);
    await store.close();
  }, 180_000);
});
