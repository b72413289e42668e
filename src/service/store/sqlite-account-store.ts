import type { SqliteDatabase } from './database.js';
import { newId } from './ids.js';
import { toKey, toUser, type KeyRow, type UserRow } from './account-rows.js';
import type { AccountStore, ApiKeyRecord, DebitResult, HoldResult, NewKey, NewUser, UserRecord } from './types.js';

export class UnknownUserError extends Error {
  readonly status = 404;
  constructor(readonly userId: string) {
    super(`no user with id ${userId}`);
    this.name = 'UnknownUserError';
  }
}

/** Users, hashed API keys and the credit ledger in SQLite; every multi-step change is one transaction. */
export class SqliteAccountStore implements AccountStore {
  private readonly statements;

  constructor(private readonly db: SqliteDatabase) {
    this.statements = {
      insertUser: db.prepare(
        `INSERT INTO users (id, nickname, avatar, credit_micros, granted_micros, free_credit, created_at, updated_at)
         VALUES (@id, @nickname, '', @credit, @credit, @free, @now, @now)`,
      ),
      getUser: db.prepare('SELECT * FROM users WHERE id = ?'),
      insertKey: db.prepare(
        `INSERT INTO api_keys (id, user_id, name, secret_hash, created_at, expires_at)
         VALUES (@id, @userId, @name, @secretHash, @now, @expiresAt)`,
      ),
      keyByHash: db.prepare('SELECT id, user_id, name, created_at, expires_at, revoked_at FROM api_keys WHERE secret_hash = ?'),
      keyById: db.prepare('SELECT id, user_id, name, created_at, expires_at, revoked_at FROM api_keys WHERE id = ?'),
      listKeys: db.prepare('SELECT id, user_id, name, created_at, expires_at, revoked_at FROM api_keys ORDER BY created_at, id'),
      revokeKey: db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL'),
      credit: db.prepare(
        `UPDATE users SET credit_micros = credit_micros + @micros, granted_micros = granted_micros + @micros, updated_at = @now
         WHERE id = @userId`,
      ),
      ledger: db.prepare(
        `INSERT INTO ledger (user_id, request_id, amount_micros, description, created_at)
         VALUES (@userId, @requestId, @amount, @description, @now) ON CONFLICT(request_id) DO NOTHING`,
      ),
      debit: db.prepare('UPDATE users SET credit_micros = credit_micros - @micros, updated_at = @now WHERE id = @userId'),
      balance: db.prepare('SELECT credit_micros FROM users WHERE id = ?'),
      take: db.prepare(
        'UPDATE users SET credit_micros = credit_micros - @micros, updated_at = @now WHERE id = @userId AND credit_micros >= @micros',
      ),
      growHold: db.prepare(
        `INSERT INTO holds (id, user_id, held_micros, created_at) VALUES (@holdId, @userId, @micros, @now)
         ON CONFLICT(id) DO UPDATE SET held_micros = held_micros + excluded.held_micros`,
      ),
      heldBy: db.prepare('SELECT held_micros FROM holds WHERE id = ? AND user_id = ?'),
      dropHold: db.prepare('DELETE FROM holds WHERE id = ?'),
      refund: db.prepare('UPDATE users SET credit_micros = credit_micros + @micros, updated_at = @now WHERE id = @userId'),
      allHolds: db.prepare('SELECT id, user_id, held_micros FROM holds'),
      debited: db.prepare('SELECT COALESCE(SUM(-amount_micros), 0) AS total FROM ledger WHERE user_id = ? AND amount_micros < 0'),
    };
  }

  async createUser(user: NewUser): Promise<UserRecord> {
    return this.db.transaction(() => this.insertUser(user)).immediate();
  }

  async getUser(id: string): Promise<UserRecord | null> {
    return this.userById(id);
  }

  async createKey(input: NewKey): Promise<ApiKeyRecord> {
    return this.insertKey(input);
  }

  async createUserWithKey(user: NewUser, key: Omit<NewKey, 'userId'>): Promise<{ user: UserRecord; key: ApiKeyRecord }> {
    return this.db
      .transaction(() => {
        const created = this.insertUser(user);
        return { user: created, key: this.insertKey({ ...key, userId: created.id }) };
      })
      .immediate();
  }

  private insertUser(user: NewUser): UserRecord {
    const now = new Date().toISOString();
    const id = user.id ?? newId();
    const credit = Math.max(0, Math.round(user.creditMicros ?? 0));
    this.statements.insertUser.run({ id, nickname: user.nickname ?? id, credit, free: user.freeCredit ? 1 : 0, now });
    if (credit > 0) {
      this.statements.ledger.run({ userId: id, requestId: null, amount: credit, description: 'starting credit', now });
    }
    return this.userById(id)!;
  }

  private userById(id: string): UserRecord | null {
    const row = this.statements.getUser.get(id) as UserRow | undefined;
    return row ? toUser(row) : null;
  }

  private insertKey(input: NewKey): ApiKeyRecord {
    if (!this.userById(input.userId)) throw new UnknownUserError(input.userId);
    const id = `key_${newId()}`;
    const now = new Date().toISOString();
    this.statements.insertKey.run({ ...input, id, expiresAt: input.expiresAt ?? null, now });
    return { id, userId: input.userId, name: input.name, createdAt: now, expiresAt: input.expiresAt ?? null, revokedAt: null };
  }

  async findKeyByHash(secretHash: string): Promise<ApiKeyRecord | null> {
    const row = this.statements.keyByHash.get(secretHash) as KeyRow | undefined;
    return row ? toKey(row) : null;
  }

  async getKey(keyId: string): Promise<ApiKeyRecord | null> {
    const row = this.statements.keyById.get(keyId) as KeyRow | undefined;
    return row ? toKey(row) : null;
  }

  async listKeys(): Promise<ApiKeyRecord[]> {
    return (this.statements.listKeys.all() as KeyRow[]).map(toKey);
  }

  async revokeKey(keyId: string): Promise<boolean> {
    return this.statements.revokeKey.run(new Date().toISOString(), keyId).changes === 1;
  }

  async addCredit(userId: string, micros: number, reason: string): Promise<UserRecord> {
    const amount = Math.round(micros);
    if (!(amount > 0)) throw new RangeError(`credit to add must be positive, got ${micros} micro-credits`);
    const now = new Date().toISOString();
    this.db.transaction(() => {
      if (this.statements.credit.run({ userId, micros: amount, now }).changes !== 1) throw new UnknownUserError(userId);
      this.statements.ledger.run({ userId, requestId: null, amount, description: reason, now });
    }).immediate();
    return this.userById(userId)!;
  }

  async debit(userId: string, micros: number, requestId: string, description: string): Promise<DebitResult> {
    const amount = Math.round(micros);
    if (!(amount >= 0)) throw new RangeError(`debit must be zero or positive, got ${micros} micro-credits`);
    const now = new Date().toISOString();
    return this.db.transaction((): DebitResult => {
      const inserted = this.statements.ledger.run({ userId, requestId, amount: -amount, description, now }).changes === 1;
      if (inserted && this.statements.debit.run({ userId, micros: amount, now }).changes !== 1) {
        throw new UnknownUserError(userId);
      }
      const row = this.statements.balance.get(userId) as { credit_micros: number } | undefined;
      return { applied: inserted, balanceMicros: row?.credit_micros ?? 0 };
    }).immediate();
  }

  async hold(userId: string, holdId: string, micros: number): Promise<HoldResult> {
    const amount = Math.round(micros);
    if (!(amount >= 0)) throw new RangeError(`hold must be zero or positive, got ${micros} micro-credits`);
    const now = new Date().toISOString();
    return this.db.transaction((): HoldResult => {
      const held = this.statements.take.run({ userId, micros: amount, now }).changes === 1;
      if (held) this.statements.growHold.run({ holdId, userId, micros: amount, now });
      else if (!this.userById(userId)) throw new UnknownUserError(userId);
      return { held, balanceMicros: this.balanceOf(userId) };
    }).immediate();
  }

  async settle(userId: string, holdId: string, micros: number, description: string): Promise<DebitResult> {
    const amount = Math.round(micros);
    if (!(amount >= 0)) throw new RangeError(`settle must be zero or positive, got ${micros} micro-credits`);
    const now = new Date().toISOString();
    return this.db.transaction((): DebitResult => {
      const row = this.statements.heldBy.get(holdId, userId) as { held_micros: number } | undefined;
      if (!row) return { applied: false, balanceMicros: this.balanceOf(userId) };
      const charged = Math.min(amount, row.held_micros);
      this.statements.dropHold.run(holdId);
      this.statements.refund.run({ userId, micros: row.held_micros - charged, now });
      if (charged > 0) this.statements.ledger.run({ userId, requestId: holdId, amount: -charged, description, now });
      return { applied: charged > 0, balanceMicros: this.balanceOf(userId) };
    }).immediate();
  }

  async releaseAllHolds(): Promise<number> {
    const now = new Date().toISOString();
    return this.db.transaction((): number => {
      const holds = this.statements.allHolds.all() as { id: string; user_id: string; held_micros: number }[];
      for (const hold of holds) {
        this.statements.refund.run({ userId: hold.user_id, micros: hold.held_micros, now });
        this.statements.dropHold.run(hold.id);
      }
      return holds.length;
    }).immediate();
  }

  private balanceOf(userId: string): number {
    return (this.statements.balance.get(userId) as { credit_micros: number } | undefined)?.credit_micros ?? 0;
  }

  async debitedMicros(userId: string): Promise<number> {
    return (this.statements.debited.get(userId) as { total: number }).total;
  }
}
