import type { ApiKeyRecord, UserRecord } from './types.js';

/** A user row as SQLite (free_credit 0/1) and PostgreSQL (boolean) return it. */
export interface UserRow {
  id: string;
  nickname: string;
  avatar: string;
  credit_micros: number;
  granted_micros: number;
  free_credit: number | boolean;
  created_at: string;
  updated_at: string;
}

export interface KeyRow {
  id: string;
  user_id: string;
  name: string;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
}

export function toUser(row: UserRow): UserRecord {
  return {
    id: row.id,
    nickname: row.nickname,
    avatar: row.avatar,
    creditMicros: row.credit_micros,
    grantedMicros: row.granted_micros,
    freeCredit: row.free_credit === 1 || row.free_credit === true,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function toKey(row: KeyRow): ApiKeyRecord {
  return { id: row.id, userId: row.user_id, name: row.name, createdAt: row.created_at, expiresAt: row.expires_at, revokedAt: row.revoked_at };
}
