import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseWav } from '../../src/audio/index.js';
import { openSqliteStores } from '../../src/service/store/index.js';
import { fixture, modelForm } from '../support/service-store-harness.js';
import { shoalEntry } from '../support/shoal-entry.js';

const root = new URL('../..', import.meta.url).pathname;
const devKey = 'sk_crash_test_key';
const children: ChildProcess[] = [];
afterAll(() => children.forEach((child) => child.kill('SIGKILL')));

function startServer(dataDir: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [shoalEntry(), 'serve', '--port', '0', '--data', dataDir, '--dev-key', devKey, '--log-level', 'error'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`server did not start: ${output}`)), 45_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({ child, url: match[1]! });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${output}`)));
  });
}

function killed(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

/**
 * Every invariant a crash must not break; returns the ids of the models found. `staged` is how many leftovers
 * the staging area held before the stores were opened: opening sweeps each of them (and any orphan model files).
 */
async function checkConsistency(dataDir: string, staged: number): Promise<Set<string>> {
  const stores = await openSqliteStores(dataDir);
  try {
    expect(stores.db.pragma('integrity_check', { simple: true })).toBe('ok');
    const users = stores.db.prepare('SELECT id, credit_micros FROM users').all() as { id: string; credit_micros: number }[];
    for (const user of users) {
      const ledger = stores.db.prepare('SELECT COALESCE(SUM(amount_micros), 0) AS total FROM ledger WHERE user_id = ?').get(user.id) as { total: number };
      expect(user.credit_micros, `balance of ${user.id} equals its ledger`).toBe(ledger.total);
    }
    const rows = stores.db.prepare('SELECT id, tags FROM models').all() as { id: string; tags: string }[];
    for (const row of rows) {
      const model = (await stores.models.get(row.id))!;
      const tagRows = (stores.db.prepare('SELECT tag FROM model_tags WHERE model_id = ? ORDER BY tag').all(row.id) as { tag: string }[]).map((r) => r.tag);
      expect(tagRows).toEqual([...(JSON.parse(row.tags) as string[])].sort());
      for (const sample of model.samples) {
        const bytes = await readFile(stores.models.filePath(model.id, sample.file));
        const wav = parseWav(bytes);
        expect(wav.streamed).toBe(false);
        expect(Math.abs(wav.samples.length / wav.sampleRate * 1000 - sample.quality.duration_ms)).toBeLessThan(2);
      }
      expect(existsSync(stores.models.filePath(model.id, model.coverFile))).toBe(true);
    }
    expect(stores.sweptFiles).toBeGreaterThanOrEqual(staged);
    expect((await readdir(stores.files.modelsDir)).sort()).toEqual(rows.map((r) => r.id).sort());
    expect(await readdir(stores.files.stagingDir)).toEqual([]);
    return new Set(rows.map((r) => r.id));
  } finally {
    stores.close();
  }
}

describe('crash safety', () => {
  it('leaves old or new state when the server is killed during uploads and debits', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'shoal-crash-'));
    const voice = await fixture('slt_00.wav');
    const confirmed = new Set<string>();
    let swept = 0;
    try {
      for (let round = 0; round < 4; round++) {
        const { child, url } = await startServer(dataDir);
        const headers = { authorization: `Bearer ${devKey}` };
        const upload = (i: number) =>
          fetch(`${url}/model`, {
            method: 'POST',
            headers,
            body: modelForm({ title: `r${round} m${i}`, tags: [`r${round}`, `m${i}`], voices: [{ bytes: voice, name: 'a.wav' }, { bytes: voice, name: 'b.wav' }], texts: ['hello', 'hello'] }),
          })
            .then(async (response) => (response.status === 201 ? confirmed.add(((await response.json()) as { _id: string })._id) : undefined))
            .catch(() => undefined);
        // One upload completes first (and warms the server up), then a burst is cut off mid-way.
        await upload(-1);
        const uploads = Array.from({ length: 6 }, (_, i) => upload(i));
        const speech = Array.from({ length: 20 }, (_, i) =>
          fetch(`${url}/v1/tts`, {
            method: 'POST',
            headers: { ...headers, 'content-type': 'application/json' },
            body: JSON.stringify({ text: `Request ${i} of round ${round}.`, format: 'pcm' }),
          })
            .then((response) => response.arrayBuffer())
            .catch(() => undefined),
        );
        await new Promise((resolve) => setTimeout(resolve, [40, 400, 1000, 2000][round]));
        await killed(child);
        await Promise.all([...uploads, ...speech]);
        const before = await readdir(join(dataDir, 'files', 'staging'));
        swept += before.length;
        const found = await checkConsistency(dataDir, before.length);
        for (const id of confirmed) expect(found.has(id), `confirmed upload ${id} survived`).toBe(true);
      }
      const { child, url } = await startServer(dataDir);
      const list = await fetch(`${url}/model?self=true&page_size=100`, { headers: { authorization: `Bearer ${devKey}` } });
      const body = (await list.json()) as { total: number };
      expect(body.total).toBeGreaterThanOrEqual(confirmed.size);
      await killed(child);
      expect(confirmed.size, 'some uploads completed before the kills').toBeGreaterThan(0);
      process.stdout.write(`crash test: ${confirmed.size} confirmed uploads survived, ${swept} staged leftovers cleaned\n`);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 240_000);
});
