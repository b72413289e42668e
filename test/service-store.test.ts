import { mkdtemp, readdir, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ServiceError } from '../src/service/accounts.js';
import {
  creditsToMicros,
  ensureDevKey,
  formatMicros,
  hashKeySecret,
  KeyRateLimiter,
  migrations,
  openSqliteStores,
  StoreAccountGate,
  type SqliteStores,
  type VoiceModelRecord,
} from '../src/service/store/index.js';
import { addCredit, createKey, listKeys, revokeKey } from '../src/cli/run-keys.js';

let dir: string;
let stores: SqliteStores;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'shoal-store-'));
  stores = await openSqliteStores(dir);
});

afterEach(async () => {
  stores.close();
  await rm(dir, { recursive: true, force: true });
});

function model(id: string, ownerId: string, overrides: Partial<VoiceModelRecord> = {}): VoiceModelRecord {
  const now = new Date().toISOString();
  return {
    id, ownerId, type: 'tts', title: `model ${id}`, titleLanguage: 'en', description: '', coverFile: '', trainMode: 'fast',
    state: 'trained', visibility: 'public', tags: [], languages: [], likeCount: 0, markCount: 0, sharedCount: 0, taskCount: 0,
    lockVisibility: false, dmcaTakenDown: false, defaultText: '', source: null,
    samples: [{ file: 'voice-0.wav', originalName: 'a.wav', text: 'hi', quality: { filename: 'a.wav', duration_ms: 1, language: 'en', quality: {}, quality_passed: true, quality_reason: '' } }],
    generated: [], voice: { voice: 'slt' }, qualityCreatedAt: now, createdAt: now, updatedAt: now, ...overrides,
  };
}

describe('database', () => {
  it('runs in WAL mode with every numbered migration recorded once across reopenings', async () => {
    expect(stores.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(stores.db.pragma('synchronous', { simple: true })).toBe(1);
    stores.close();
    stores = await openSqliteStores(dir);
    const rows = stores.db.prepare('SELECT version FROM migrations ORDER BY version').all() as { version: number }[];
    expect(rows.map((r) => r.version)).toEqual(migrations.map((m) => m.version));
  });
});

describe('account store', () => {
  it('stores keys only as hashes and authenticates, expires and revokes them', async () => {
    let now = new Date('2030-01-01T00:00:00Z');
    const gate = new StoreAccountGate(stores.accounts, { now: () => now });
    const user = await stores.accounts.createUser({ nickname: 'ann', creditMicros: 1_000 });
    const key = await stores.accounts.createKey({ userId: user.id, name: 'laptop', secretHash: hashKeySecret('sk_secret_one'), expiresAt: '2030-06-01T00:00:00.000Z' });
    const database = await readFile(join(dir, 'shoal.sqlite'));
    expect(database.includes(Buffer.from('sk_secret_one'))).toBe(false);
    expect(await gate.authenticate('sk_secret_one')).toEqual({ userId: user.id, keyId: key.id });
    expect(await gate.authenticate('Bearer sk_secret_one')).toEqual({ userId: user.id, keyId: key.id });
    expect(await gate.authenticate('sk_secret_two')).toBeNull();
    expect(await gate.authenticate(undefined)).toBeNull();
    expect(await gate.authenticate('')).toBeNull();
    now = new Date('2030-06-01T00:00:00Z');
    expect(await gate.authenticate('sk_secret_one')).toBeNull();
    now = new Date('2030-01-02T00:00:00Z');
    expect(await stores.accounts.revokeKey(key.id)).toBe(true);
    expect(await gate.authenticate('sk_secret_one')).toBeNull();
    expect(await stores.accounts.revokeKey(key.id)).toBe(false);
  });

  it('debits once per request id, exactly, and 402s only when the credit is used up', async () => {
    const gate = new StoreAccountGate(stores.accounts);
    const user = await stores.accounts.createUser({ creditMicros: 100 });
    const principal = { userId: user.id, keyId: 'k' };
    await gate.ensureCredit(principal);
    await gate.charge(principal, { kind: 'tts', characters: 3 }, 'req-1');
    await gate.charge(principal, { kind: 'tts', characters: 3 }, 'req-1');
    expect((await stores.accounts.getUser(user.id))!.creditMicros).toBe(100 - 3 * gate.pricing.ttsMicrosPerCharacter);
    await gate.charge(principal, { kind: 'asr', seconds: 0.555 }, 'req-2');
    expect((await stores.accounts.getUser(user.id))!.creditMicros).toBe(100 - 45 - Math.ceil(0.555 * gate.pricing.asrMicrosPerSecond));
    await expect(gate.ensureCredit(principal)).rejects.toMatchObject({ status: 402 });
    expect(await stores.accounts.debitedMicros(user.id)).toBe(100 - (await stores.accounts.getUser(user.id))!.creditMicros);
  });

  it('keeps the balance exact under 50 concurrent debits and survives a reopen', async () => {
    const gate = new StoreAccountGate(stores.accounts);
    const user = await stores.accounts.createUser({ creditMicros: creditsToMicros(10) });
    const principal = { userId: user.id, keyId: 'k' };
    const sizes = Array.from({ length: 50 }, (_, i) => i + 1);
    await Promise.all(sizes.map((n) => gate.charge(principal, { kind: 'tts', characters: n }, `r${n}`)));
    await Promise.all(sizes.map((n) => gate.charge(principal, { kind: 'tts', characters: n }, `r${n}`)));
    const expected = sizes.reduce((sum, n) => sum + n * gate.pricing.ttsMicrosPerCharacter, 0);
    stores.close();
    stores = await openSqliteStores(dir);
    expect((await stores.accounts.getUser(user.id))!.creditMicros).toBe(creditsToMicros(10) - expected);
    expect(await stores.accounts.debitedMicros(user.id)).toBe(expected);
  });

  it('creates the dev key once, with starting credit', async () => {
    const first = await ensureDevKey(stores.accounts, 'dev-secret', { credit: 5 });
    const second = await ensureDevKey(stores.accounts, 'dev-secret', { credit: 5 });
    expect(second.id).toBe(first.id);
    expect(await stores.accounts.listKeys()).toHaveLength(1);
    expect((await stores.accounts.getUser(first.userId))!.creditMicros).toBe(5_000_000);
  });

  it('formats micro-credits exactly', () => {
    expect(formatMicros(12_345_600)).toBe('12.3456');
    expect(formatMicros(5_000_000)).toBe('5.00');
    expect(formatMicros(15)).toBe('0.000015');
    expect(formatMicros(-1_500_000)).toBe('-1.50');
  });
});

describe('rate limiter', () => {
  it('refills a token bucket per key and limits concurrent live sessions', () => {
    let now = 0;
    const limiter = new KeyRateLimiter({ requestsPerSecond: 2, burst: 2, liveSessions: 1 }, () => now);
    limiter.admit('a', 'request');
    limiter.admit('a', 'request');
    let refused: unknown;
    try {
      limiter.admit('a', 'request');
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(ServiceError);
    expect(refused).toMatchObject({ status: 429, retryAfterSeconds: 1 });
    limiter.admit('b', 'request');
    now = 500;
    const release = limiter.admit('a', 'live-session');
    now = 1500;
    expect(() => limiter.admit('a', 'live-session')).toThrow(/live sessions/);
    release();
    release();
    limiter.admit('a', 'live-session');
  });
});

describe('voice model store', () => {
  it('creates with files, lists by visibility, counts uses, deletes files after the row', async () => {
    const owner = await stores.accounts.createUser({});
    const other = await stores.accounts.createUser({});
    for (const [id, visibility] of [['m1', 'public'], ['m2', 'unlist'], ['m3', 'private']] as const) {
      const staged = await stores.models.stage(new TextEncoder().encode(`audio of ${id}`));
      await stores.models.create(model(id, owner.id, { visibility, tags: ['a', id] }), [{ stagedPath: staged, file: 'voice-0.wav' }]);
    }
    const page = await stores.models.list({ viewerId: other.id, pageSize: 10, pageNumber: 1, sortBy: 'created_at' });
    expect(page.items.map((m) => m.id)).toEqual(['m1']);
    const own = await stores.models.list({ viewerId: owner.id, authorId: owner.id, pageSize: 10, pageNumber: 1, sortBy: 'created_at' });
    expect(own.total).toBe(3);
    const ofOwnerSeenByOther = await stores.models.list({ viewerId: other.id, authorId: owner.id, pageSize: 10, pageNumber: 1, sortBy: 'score' });
    expect(ofOwnerSeenByOther.items.map((m) => m.id)).toEqual(['m1']);
    await stores.models.incrementTaskCount('m1');
    expect((await stores.models.get('m1'))!.taskCount).toBe(1);
    expect(await readFile(stores.models.filePath('m2', 'voice-0.wav'), 'utf8')).toBe('audio of m2');
    expect(await stores.models.delete('m2')).toBe(true);
    expect(await stores.models.get('m2')).toBeNull();
    await expect(readdir(stores.files.modelDir('m2'))).rejects.toThrow(/ENOENT/);
    expect(await stores.models.delete('m2')).toBe(false);
  });

  it('sweeps temp files, folders without a row and unreferenced files at start', async () => {
    const owner = await stores.accounts.createUser({});
    const staged = await stores.models.stage(new Uint8Array([1, 2, 3]));
    await stores.models.create(model('kept', owner.id), [{ stagedPath: staged, file: 'voice-0.wav' }]);
    await writeFile(join(stores.files.stagingDir, 'abc.tmp'), 'half');
    await mkdir(stores.files.modelDir('orphan'));
    await writeFile(join(stores.files.modelDir('orphan'), 'voice-0.wav'), 'x');
    await writeFile(join(stores.files.modelDir('kept'), 'cover-old.png'), 'x');
    stores.close();
    stores = await openSqliteStores(dir);
    expect(stores.sweptFiles).toBe(3);
    expect(await readdir(stores.files.stagingDir)).toEqual([]);
    expect(await readdir(stores.files.modelsDir)).toEqual(['kept']);
    expect(await readdir(stores.files.modelDir('kept'))).toEqual(['voice-0.wav']);
  });

  it('refuses path tricks in file names', async () => {
    const owner = await stores.accounts.createUser({});
    const staged = await stores.models.stage(new Uint8Array([1]));
    await expect(stores.models.create(model('m', owner.id), [{ stagedPath: staged, file: '../escape.wav' }])).rejects.toThrow(/unsafe/);
    expect(await stores.models.get('m')).toBeNull();
  });
});

describe('admin cli', () => {
  it('creates, lists and revokes keys and adds credit', async () => {
    stores.close();
    const out: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => (out.push(String(chunk)), true));
    try {
      await createKey({ data: dir, name: 'ci', user: 'alice', credit: 2, expires: '2099-01-01' });
      const secret = out.join('').trim().split('\n').pop()!;
      expect(secret).toMatch(/^sk_/);
      out.length = 0;
      await listKeys({ data: dir });
      const keyId = /^(key_[0-9a-f]+)\tuser alice\t"ci"/.exec(out.join(''))![1]!;
      expect(out.join('')).toContain('active until 2099-01-01');
      await addCredit('alice', 1.5, { data: dir });
      expect(out.join('')).toContain('user alice credit: 3.50');
      out.length = 0;
      await expect(addCredit('nobody', 1, { data: dir })).rejects.toThrow(/no user with id nobody/);
      await expect(createKey({ data: dir, name: 'x', expires: 'soon' })).rejects.toThrow(/not a date/);
      await mkdir(join(dir, 'files', 'models', 'in-flight-upload'));
      await addCredit('alice', 1, { data: dir });
      expect(await readdir(join(dir, 'files', 'models'))).toContain('in-flight-upload');
      await revokeKey(keyId, { data: dir });
      await expect(revokeKey(keyId, { data: dir })).rejects.toThrow(/already revoked/);
      stores = await openSqliteStores(dir);
      const gate = new StoreAccountGate(stores.accounts);
      expect(await gate.authenticate(secret)).toBeNull();
    } finally {
      spy.mockRestore();
    }
  });
});
