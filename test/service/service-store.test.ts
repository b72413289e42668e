import { mkdtemp, readdir, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { text } from 'node:stream/consumers';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ServiceError } from '../../src/service/accounts.js';
import {
  creditsToMicros,
  ensureDevKey,
  formatMicros,
  hashKeySecret,
  KeyRateLimiter,
  fixedWindow,
  migrations,
  openPgStores,
  openSqliteStores,
  StoreAccountGate,
  type SqliteStores,
  type Stores,
  type VoiceModelRecord,
} from '../../src/service/store/index.js';
import { addCredit, createKey, listKeys, revokeKey } from '../../src/cli/run-keys.js';
import { startPgCluster, type PgCluster } from '../support/pg-cluster.js';

/** The suite's stores: SQLite in a temp folder, or a fresh database of the file's PostgreSQL cluster. */
interface Backend {
  name: 'SQLite' | 'PostgreSQL';
  /** Where the stores live: the data directory or the database URL. */
  where(): Promise<{ data: string; database?: string }>;
  open(where: { data: string; database?: string }): Promise<Stores>;
}

let cluster: PgCluster;
beforeAll(async () => {
  cluster = await startPgCluster();
}, 60_000);
afterAll(async () => cluster?.close());

const backends: Backend[] = [
  {
    name: 'SQLite',
    where: async () => ({ data: await mkdtemp(join(tmpdir(), 'shoal-store-')) }),
    open: ({ data }) => openSqliteStores(data),
  },
  {
    name: 'PostgreSQL',
    where: async () => ({ data: await mkdtemp(join(tmpdir(), 'shoal-store-')), database: await cluster.createDatabase() }),
    open: ({ database }) => openPgStores(database!, { fleet: { heartbeatMs: 200 } }),
  },
];

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

describe.each(backends)('$name stores', (backend) => {
  let where: { data: string; database?: string };
  let stores: Stores;

  beforeEach(async () => {
    where = await backend.where();
    stores = await backend.open(where);
  });

  afterEach(async () => {
    await stores.close();
    await rm(where.data, { recursive: true, force: true });
  });

  describe('account store', () => {
    it('stores keys only as hashes and authenticates, expires and revokes them', async () => {
      let now = new Date('2030-01-01T00:00:00Z');
      const gate = new StoreAccountGate(stores.accounts, { now: () => now });
      const user = await stores.accounts.createUser({ nickname: 'ann', creditMicros: 1_000 });
      const key = await stores.accounts.createKey({ userId: user.id, name: 'laptop', secretHash: hashKeySecret('sk_secret_one'), expiresAt: '2030-06-01T00:00:00.000Z' });
      if (stores.kind === 'sqlite') {
        const database = await readFile(join(where.data, 'shoal.sqlite'));
        expect(database.includes(Buffer.from('sk_secret_one'))).toBe(false);
      } else {
        const { rows } = await stores.db.query("SELECT count(*)::INTEGER AS n FROM api_keys WHERE secret_hash LIKE '%sk_secret%' OR name LIKE '%sk_secret%'");
        expect(rows[0]!.n).toBe(0);
      }
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
      // 100 - 45 - 56 = -1: SQLite bills delivered work in full; PostgreSQL's balance is never below zero (a CHECK), the ledger records the 55 taken.
      const expected = 100 - 45 - Math.ceil(0.555 * gate.pricing.asrMicrosPerSecond);
      expect((await stores.accounts.getUser(user.id))!.creditMicros).toBe(stores.kind === 'sqlite' ? expected : 0);
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
      await stores.close();
      stores = await backend.open(where);
      expect((await stores.accounts.getUser(user.id))!.creditMicros).toBe(creditsToMicros(10) - expected);
      expect(await stores.accounts.debitedMicros(user.id)).toBe(expected);
    });

    it('holds never take the balance below zero under 40 concurrent holds; settles bill once and return the rest', async () => {
      const user = await stores.accounts.createUser({ creditMicros: 1_000 });
      const results = await Promise.all(Array.from({ length: 40 }, (_, i) => stores.accounts.hold(user.id, `h${i}`, 70)));
      const held = results.flatMap((result, i) => (result.held ? [`h${i}`] : []));
      expect(held).toHaveLength(14);
      expect((await stores.accounts.getUser(user.id))!.creditMicros).toBe(1_000 - 14 * 70);
      expect(results.every((result) => result.balanceMicros >= 0)).toBe(true);
      expect(await stores.accounts.settle(user.id, held[0]!, 50, 'tts: 3 characters')).toMatchObject({ applied: true });
      expect(await stores.accounts.settle(user.id, held[0]!, 50, 'tts: 3 characters')).toMatchObject({ applied: false });
      await stores.accounts.settle(user.id, held[1]!, 0, 'nothing delivered');
      expect((await stores.accounts.getUser(user.id))!.creditMicros).toBe(1_000 - 12 * 70 - 50);
      expect(await stores.accounts.debitedMicros(user.id)).toBe(50);
    });

    it('creates the dev key once, with starting credit, also when two processes race', async () => {
      const second = await backend.open(where);
      try {
        const [a, b] = await Promise.all([
          ensureDevKey(stores.accounts, 'dev-secret', { credit: 5 }),
          ensureDevKey(second.accounts, 'dev-secret', { credit: 5 }),
        ]);
        expect(b.id).toBe(a.id);
        expect((await ensureDevKey(stores.accounts, 'dev-secret', { credit: 5 })).id).toBe(a.id);
        expect(await stores.accounts.listKeys()).toHaveLength(1);
        expect((await stores.accounts.getUser(a.userId))!.creditMicros).toBe(5_000_000);
      } finally {
        await second.close();
      }
    });
  });

  describe('voice model store', () => {
    it('creates with files, lists by visibility, counts uses, deletes files with the row', async () => {
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
      const tagged = await stores.models.list({ viewerId: owner.id, authorId: owner.id, tags: ['a', 'm2'], title: 'model', pageSize: 10, pageNumber: 1, sortBy: 'score' });
      expect(tagged.items.map((m) => m.id)).toEqual(['m2']);
      const ofOwnerSeenByOther = await stores.models.list({ viewerId: other.id, authorId: owner.id, pageSize: 10, pageNumber: 1, sortBy: 'score' });
      expect(ofOwnerSeenByOther.items.map((m) => m.id)).toEqual(['m1']);
      await stores.models.incrementTaskCount('m1');
      expect((await stores.models.get('m1'))!.taskCount).toBe(1);
      expect(await text(await stores.models.openFile('m2', 'voice-0.wav'))).toBe('audio of m2');
      expect(await stores.models.delete('m2')).toBe(true);
      expect(await stores.models.get('m2')).toBeNull();
      if (stores.kind === 'sqlite') await expect(readdir(stores.files.modelDir('m2'))).rejects.toThrow(/ENOENT/);
      else expect((await stores.db.query("SELECT 1 FROM model_files WHERE model_id = 'm2'")).rowCount).toBe(0);
      expect(await stores.models.delete('m2')).toBe(false);
    });

    it('replaces a cover on update and drops the old one', async () => {
      const owner = await stores.accounts.createUser({});
      const voice = await stores.models.stage(new Uint8Array([1]));
      const first = await stores.models.stage(new TextEncoder().encode('old cover'));
      await stores.models.create(model('c', owner.id, { coverFile: 'cover-1.png' }), [{ stagedPath: voice, file: 'voice-0.wav' }, { stagedPath: first, file: 'cover-1.png' }]);
      const second = await stores.models.stage(new TextEncoder().encode('new cover'));
      const updated = await stores.models.update('c', { coverFile: 'cover-2.png', tags: ['x'] }, [{ stagedPath: second, file: 'cover-2.png' }]);
      expect(updated).toMatchObject({ coverFile: 'cover-2.png', tags: ['x'] });
      expect(await text(await stores.models.openFile('c', 'cover-2.png'))).toBe('new cover');
      await expect(stores.models.openFile('c', 'cover-1.png').then(text)).rejects.toThrow();
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
      await stores.close();
      const out: string[] = [];
      const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => (out.push(String(chunk)), true));
      try {
        await createKey({ ...where, name: 'ci', user: 'alice', credit: 2, expires: '2099-01-01' });
        const secret = out.join('').trim().split('\n').pop()!;
        expect(secret).toMatch(/^sk_/);
        out.length = 0;
        await listKeys(where);
        const keyId = /^(key_[0-9a-f]+)\tuser alice\t"ci"/.exec(out.join(''))![1]!;
        expect(out.join('')).toContain('active until 2099-01-01');
        await addCredit('alice', 1.5, where);
        expect(out.join('')).toContain('user alice credit: 3.50');
        out.length = 0;
        await expect(addCredit('nobody', 1, where)).rejects.toThrow(/no user with id nobody/);
        await expect(createKey({ ...where, name: 'x', expires: 'soon' })).rejects.toThrow(/not a date/);
        if (!where.database) {
          await mkdir(join(where.data, 'files', 'models', 'in-flight-upload'));
          await addCredit('alice', 1, where);
          expect(await readdir(join(where.data, 'files', 'models'))).toContain('in-flight-upload');
        }
        await revokeKey(keyId, where);
        await expect(revokeKey(keyId, where)).rejects.toThrow(/already revoked/);
        stores = await backend.open(where);
        const gate = new StoreAccountGate(stores.accounts);
        expect(await gate.authenticate(secret)).toBeNull();
      } finally {
        spy.mockRestore();
      }
    });
  });
});

describe('SQLite only', () => {
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

  it('runs in WAL mode with every numbered migration recorded once across reopenings', async () => {
    expect(stores.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(stores.db.pragma('synchronous', { simple: true })).toBe(1);
    stores.close();
    stores = await openSqliteStores(dir);
    const rows = stores.db.prepare('SELECT version FROM migrations ORDER BY version').all() as { version: number }[];
    expect(rows.map((r) => r.version)).toEqual(migrations.map((m) => m.version));
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
});

describe('micro-credits', () => {
  it('formats micro-credits exactly', () => {
    expect(formatMicros(12_345_600)).toBe('12.3456');
    expect(formatMicros(5_000_000)).toBe('5.00');
    expect(formatMicros(15)).toBe('0.000015');
    expect(formatMicros(-1_500_000)).toBe('-1.50');
  });
});

describe('rate limiter', () => {
  it('counts a fixed window per key, the fleet\'s, and limits concurrent live sessions', () => {
    let now = 0;
    // 2 per second in bursts of 4: windows of 2 s with 4 requests each.
    const limiter = new KeyRateLimiter({ requestsPerSecond: 2, burst: 4, liveSessions: 1 }, () => now);
    for (let i = 0; i < 4; i++) limiter.admit('a', 'request');
    now = 500;
    let refused: unknown;
    try {
      limiter.admit('a', 'request');
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(ServiceError);
    // The window opened at 0 ends at 2000: 1.5 s left, rounded up.
    expect(refused).toMatchObject({ status: 429, retryAfterSeconds: 2 });
    limiter.admit('b', 'request');
    now = 1999;
    expect(() => limiter.admit('a', 'request')).toThrow(/rate limit/);
    now = 2000;
    const release = limiter.admit('a', 'live-session');
    expect(() => limiter.admit('a', 'live-session')).toThrow(/live sessions/);
    release();
    release();
    limiter.admit('a', 'live-session');
    // The new window has had 2 of its 4: two more, then refused.
    limiter.admit('a', 'request');
    limiter.admit('a', 'request');
    expect(() => limiter.admit('a', 'request')).toThrow(/rate limit/);
  });

  it('gives one process and a fleet the same window', () => {
    expect(fixedWindow({ requestsPerSecond: 20, burst: 40 })).toEqual({ points: 40, seconds: 2 });
    expect(fixedWindow({ requestsPerSecond: 5, burst: 5 })).toEqual({ points: 5, seconds: 1 });
    expect(fixedWindow({ requestsPerSecond: 1, burst: 1 })).toEqual({ points: 1, seconds: 1 });
  });
});
