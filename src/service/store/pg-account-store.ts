import { newId } from './ids.js';
import { toKey, toUser, type KeyRow, type UserRow } from './account-rows.js';
import { changesChannel, StoreUnavailableError, type PgDatabase, type Queryable } from './pg-database.js';
import { UnknownUserError } from './sqlite-account-store.js';
import type { AccountStore, ApiKeyRecord, DebitResult, HoldResult, NewKey, NewUser, UserRecord } from './types.js';

export const defaults = {
  /** Longest a found key is served from memory (revocations drop it at once through the change feed), in ms. */
  keyCacheMs: 1_000,
  keyCacheSize: 10_000,
};

const keyColumns = 'id, user_id, name, created_at, expires_at, revoked_at';

/**
 * Users, hashed API keys, the credit ledger and credit holds in PostgreSQL, shared by every instance.
 * A balance only changes in a conditional UPDATE of its row (which locks it), so instances racing on one
 * user never take it below zero. Each hold names the instance that took it: a hold of an instance that
 * stopped renewing its lease is returned by `FleetState` (see fleet-state.ts).
 */
export class PgAccountStore implements AccountStore {
  /** Keys found recently, by secret hash: a request's key lookup is served from memory while the change feed is up. */
  private readonly keys = new Map<string, { key: ApiKeyRecord; atMs: number }>();
  /** Whether keys may be served from memory: only while revocations arrive by the change feed (LISTEN). */
  cacheKeys: () => boolean = () => false;
  /** Settles that could not reach the database, by hold id: retried by `settlePending` (the fleet's heartbeat). */
  private readonly pending = new Map<string, { userId: string; micros: number; description: string }>();

  constructor(
    private readonly db: PgDatabase,
    /** The instance whose heartbeat leases the holds this store takes. */
    private readonly instanceId: string,
  ) {}

  async createUser(user: NewUser): Promise<UserRecord> {
    return this.db.transaction((client) => this.insertUser(client, user));
  }

  async getUser(id: string): Promise<UserRecord | null> {
    const { rows } = await this.db.query<UserRow>('SELECT * FROM users WHERE id = $1', [id], 'user-by-id');
    return rows[0] ? toUser(rows[0]) : null;
  }

  async createKey(input: NewKey): Promise<ApiKeyRecord> {
    return this.db.transaction((client) => this.insertKey(client, input));
  }

  async createUserWithKey(user: NewUser, key: Omit<NewKey, 'userId'>): Promise<{ user: UserRecord; key: ApiKeyRecord }> {
    return this.db.transaction(async (client) => {
      const created = await this.insertUser(client, user);
      return { user: created, key: await this.insertKey(client, { ...key, userId: created.id }) };
    });
  }

  private async insertUser(client: Queryable, user: NewUser): Promise<UserRecord> {
    const now = new Date().toISOString();
    const id = user.id ?? newId();
    const credit = Math.max(0, Math.round(user.creditMicros ?? 0));
    const { rows } = await client.query<UserRow>(
      `INSERT INTO users (id, nickname, avatar, credit_micros, granted_micros, free_credit, created_at, updated_at)
       VALUES ($1, $2, '', $3, $3, $4, $5, $5) RETURNING *`,
      [id, user.nickname ?? id, credit, Boolean(user.freeCredit), now],
    );
    if (credit > 0) {
      await client.query('INSERT INTO ledger (user_id, request_id, amount_micros, description, created_at) VALUES ($1, NULL, $2, $3, $4)', [
        id, credit, 'starting credit', now,
      ]);
    }
    return toUser(rows[0]!);
  }

  private async insertKey(client: Queryable, input: NewKey): Promise<ApiKeyRecord> {
    const exists = await client.query('SELECT 1 FROM users WHERE id = $1', [input.userId]);
    if (exists.rowCount === 0) throw new UnknownUserError(input.userId);
    const id = `key_${newId()}`;
    const now = new Date().toISOString();
    await client.query('INSERT INTO api_keys (id, user_id, name, secret_hash, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)', [
      id, input.userId, input.name, input.secretHash, now, input.expiresAt ?? null,
    ]);
    return { id, userId: input.userId, name: input.name, createdAt: now, expiresAt: input.expiresAt ?? null, revokedAt: null };
  }

  /**
   * The key with this secret hash. While the change feed is up a found key is kept for up to `keyCacheMs`
   * and dropped at once when any instance revokes it (`forget`), so a revocation still reaches every
   * instance at once and within `keyCacheMs` at worst.
   */
  async findKeyByHash(secretHash: string): Promise<ApiKeyRecord | null> {
    const cached = this.keys.get(secretHash);
    if (cached && this.cacheKeys() && performance.now() - cached.atMs < defaults.keyCacheMs) return cached.key;
    const found = await this.lookUpKey(secretHash);
    if (found) {
      if (this.keys.size >= defaults.keyCacheSize) this.keys.clear();
      this.keys.set(secretHash, { key: found, atMs: performance.now() });
    } else this.keys.delete(secretHash);
    return found;
  }

  /** Drops cached keys after a change: `key:<id>` (one key), `*` (changes may have been missed). */
  forget(change: string): void {
    if (change === '*') return this.keys.clear();
    if (!change.startsWith('key:')) return;
    const keyId = change.slice('key:'.length);
    for (const [hash, entry] of this.keys) if (entry.key.id === keyId) this.keys.delete(hash);
  }

  private async lookUpKey(secretHash: string): Promise<ApiKeyRecord | null> {
    const { rows } = await this.db.query<KeyRow>(`SELECT ${keyColumns} FROM api_keys WHERE secret_hash = $1`, [secretHash], 'key-by-hash');
    return rows[0] ? toKey(rows[0]) : null;
  }

  async getKey(keyId: string): Promise<ApiKeyRecord | null> {
    const { rows } = await this.db.query<KeyRow>(`SELECT ${keyColumns} FROM api_keys WHERE id = $1`, [keyId], 'key-by-id');
    return rows[0] ? toKey(rows[0]) : null;
  }

  async listKeys(): Promise<ApiKeyRecord[]> {
    const { rows } = await this.db.query<KeyRow>(`SELECT ${keyColumns} FROM api_keys ORDER BY created_at, id`);
    return rows.map(toKey);
  }

  /** Revokes and tells every instance at once (NOTIFY at commit), so live sessions of the key end everywhere. */
  async revokeKey(keyId: string): Promise<boolean> {
    this.forget(`key:${keyId}`);
    return this.db.transaction(async (client) => {
      const { rowCount } = await client.query('UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [new Date().toISOString(), keyId]);
      if (rowCount === 1) await client.query('SELECT pg_notify($1, $2)', [changesChannel, `key:${keyId}`]);
      return rowCount === 1;
    });
  }

  async addCredit(userId: string, micros: number, reason: string): Promise<UserRecord> {
    const amount = Math.round(micros);
    if (!(amount > 0)) throw new RangeError(`credit to add must be positive, got ${micros} micro-credits`);
    const now = new Date().toISOString();
    return this.db.transaction(async (client) => {
      const { rows } = await client.query<UserRow>(
        `UPDATE users SET credit_micros = credit_micros + $2, granted_micros = granted_micros + $2, updated_at = $3 WHERE id = $1 RETURNING *`,
        [userId, amount, now],
      );
      if (!rows[0]) throw new UnknownUserError(userId);
      await client.query('INSERT INTO ledger (user_id, request_id, amount_micros, description, created_at) VALUES ($1, NULL, $2, $3, $4)', [userId, amount, reason, now]);
      return toUser(rows[0]);
    });
  }

  /** Debits once per `requestId`; delivered work takes the balance to zero at most (the ledger records what was taken). */
  async debit(userId: string, micros: number, requestId: string, description: string): Promise<DebitResult> {
    const amount = Math.round(micros);
    if (!(amount >= 0)) throw new RangeError(`debit must be zero or positive, got ${micros} micro-credits`);
    const now = new Date().toISOString();
    return this.db.transaction(async (client) => {
      const locked = await client.query<{ credit_micros: number }>('SELECT credit_micros FROM users WHERE id = $1 FOR UPDATE', [userId]);
      if (!locked.rows[0]) throw new UnknownUserError(userId);
      const balance = locked.rows[0].credit_micros;
      const charged = Math.min(amount, balance);
      const inserted = await client.query(
        `INSERT INTO ledger (user_id, request_id, amount_micros, description, created_at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (request_id) DO NOTHING`,
        [userId, requestId, -charged, description, now],
      );
      if (inserted.rowCount !== 1) return { applied: false, balanceMicros: balance };
      await client.query('UPDATE users SET credit_micros = credit_micros - $2, updated_at = $3 WHERE id = $1', [userId, charged, now]);
      return { applied: true, balanceMicros: balance - charged };
    });
  }

  async hold(userId: string, holdId: string, micros: number): Promise<HoldResult> {
    const amount = Math.round(micros);
    if (!(amount >= 0)) throw new RangeError(`hold must be zero or positive, got ${micros} micro-credits`);
    const now = new Date().toISOString();
    return this.db.transaction(async (client) => {
      const taken = await client.query<{ credit_micros: number }>(
        'UPDATE users SET credit_micros = credit_micros - $2, updated_at = $3 WHERE id = $1 AND credit_micros >= $2 RETURNING credit_micros',
        [userId, amount, now],
      );
      if (taken.rows[0]) {
        await client.query(
          `INSERT INTO holds (id, user_id, instance_id, held_micros, created_at) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (id) DO UPDATE SET held_micros = holds.held_micros + excluded.held_micros, instance_id = excluded.instance_id`,
          [holdId, userId, this.instanceId, amount, now],
        );
        return { held: true, balanceMicros: taken.rows[0].credit_micros };
      }
      const { rows } = await client.query<{ credit_micros: number }>('SELECT credit_micros FROM users WHERE id = $1', [userId]);
      if (!rows[0]) throw new UnknownUserError(userId);
      return { held: false, balanceMicros: rows[0].credit_micros };
    });
  }

  /**
   * Ends a hold. When the database cannot be reached the settle is kept and retried until it lands, so the
   * hold of a live instance is never left open (it is this instance's lease that keeps it from the sweep).
   */
  async settle(userId: string, holdId: string, micros: number, description: string): Promise<DebitResult> {
    try {
      const result = await this.settleNow(userId, holdId, micros, description);
      this.pending.delete(holdId);
      return result;
    } catch (error) {
      if (!(error instanceof StoreUnavailableError)) throw error;
      // The work was delivered: the caller has its answer, and the bill follows once the database is back.
      this.pending.set(holdId, { userId, micros, description });
      return { applied: false, balanceMicros: 0, queued: true };
    }
  }

  /** Retries the settles that could not reach the database (stopping at the first that still cannot); the count still pending. */
  async settlePending(): Promise<number> {
    for (const [holdId, { userId, micros, description }] of [...this.pending]) {
      if ((await this.settle(userId, holdId, micros, description)).queued) break;
    }
    return this.pending.size;
  }

  private async settleNow(userId: string, holdId: string, micros: number, description: string): Promise<DebitResult> {
    const amount = Math.round(micros);
    if (!(amount >= 0)) throw new RangeError(`settle must be zero or positive, got ${micros} micro-credits`);
    const now = new Date().toISOString();
    return this.db.transaction(async (client) => {
      // Deleting the row claims it: a hold released meanwhile (its instance's lease ran out) is gone, and nothing is billed.
      const dropped = await client.query<{ held_micros: number }>('DELETE FROM holds WHERE id = $1 AND user_id = $2 RETURNING held_micros', [holdId, userId]);
      const held = dropped.rows[0]?.held_micros;
      if (held === undefined) return { applied: false, balanceMicros: await balanceOf(client, userId) };
      const charged = Math.min(amount, held);
      const { rows } = await client.query<{ credit_micros: number }>(
        'UPDATE users SET credit_micros = credit_micros + $2, updated_at = $3 WHERE id = $1 RETURNING credit_micros',
        [userId, held - charged, now],
      );
      if (charged > 0) {
        await client.query(
          `INSERT INTO ledger (user_id, request_id, amount_micros, description, created_at) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (request_id) DO NOTHING`,
          [userId, holdId, -charged, description, now],
        );
      }
      return { applied: charged > 0, balanceMicros: rows[0]?.credit_micros ?? 0 };
    });
  }

  /** Returns every open hold, of every instance, to its balance (an operator's repair when the whole fleet is stopped). */
  async releaseAllHolds(): Promise<number> {
    return this.db.transaction((client) => refundHolds(client, 'DELETE FROM holds RETURNING user_id, held_micros', []));
  }

  async debitedMicros(userId: string): Promise<number> {
    const { rows } = await this.db.query<{ total: number }>(
      'SELECT COALESCE(SUM(-amount_micros), 0)::BIGINT AS total FROM ledger WHERE user_id = $1 AND amount_micros < 0',
      [userId],
    );
    return rows[0]!.total;
  }
}

async function balanceOf(client: Queryable, userId: string): Promise<number> {
  const { rows } = await client.query<{ credit_micros: number }>('SELECT credit_micros FROM users WHERE id = $1', [userId]);
  return rows[0]?.credit_micros ?? 0;
}

/** Runs a `DELETE ... RETURNING user_id, held_micros` on holds and returns what it removed to the balances; the count. */
export async function refundHolds(client: Queryable, deleteSql: string, values: unknown[]): Promise<number> {
  const { rows } = await client.query<{ user_id: string; held_micros: number }>(deleteSql, values);
  const now = new Date().toISOString();
  for (const row of rows) {
    await client.query('UPDATE users SET credit_micros = credit_micros + $2, updated_at = $3 WHERE id = $1', [row.user_id, row.held_micros, now]);
  }
  return rows.length;
}
