import type { Readable } from 'node:stream';
import type { VoiceSettings } from '../../engines/types.js';

/**
 * The storage seams of the service. SQLite implements them on one machine; PostgreSQL implements the same
 * interfaces for several instances on one database (`shoal serve --database postgres://...`).
 * Money is kept in integer micro-credits (1 credit = 1,000,000) so that debits add up exactly.
 */

export interface UserRecord {
  id: string;
  nickname: string;
  avatar: string;
  creditMicros: number;
  /** Sum of every credit ever added (the package `total`). */
  grantedMicros: number;
  /** Part of the credit that was given for free (dev user, starting credit). */
  freeCredit: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface ApiKeyRecord {
  id: string;
  userId: string;
  name: string;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
}

export interface NewUser {
  id?: string;
  nickname?: string;
  creditMicros?: number;
  freeCredit?: boolean;
}

export interface NewKey {
  userId: string;
  name: string;
  secretHash: string;
  expiresAt?: string | null;
}

export interface DebitResult {
  /** False when this request id was already charged (the debit was not repeated). */
  applied: boolean;
  balanceMicros: number;
  /**
   * True when the database could not be reached: the settle is kept and retried until it lands (`balanceMicros`
   * is then the last balance known, or 0).
   */
  queued?: boolean;
}

export interface HoldResult {
  /** False when the balance could not cover the hold (nothing changed). */
  held: boolean;
  /** Balance after the hold (or unchanged when refused), in micro-credits. */
  balanceMicros: number;
}

/** Every method is async so that a server database can implement it. */
export interface AccountStore {
  createUser(user: NewUser): Promise<UserRecord>;
  getUser(id: string): Promise<UserRecord | null>;
  /** Stores only the hash of the key's secret. */
  createKey(input: NewKey): Promise<ApiKeyRecord>;
  /** Creates a user and its first key in one transaction. */
  createUserWithKey(user: NewUser, key: Omit<NewKey, 'userId'>): Promise<{ user: UserRecord; key: ApiKeyRecord }>;
  findKeyByHash(secretHash: string): Promise<ApiKeyRecord | null>;
  getKey(keyId: string): Promise<ApiKeyRecord | null>;
  listKeys(): Promise<ApiKeyRecord[]>;
  revokeKey(keyId: string): Promise<boolean>;
  addCredit(userId: string, micros: number, reason: string): Promise<UserRecord>;
  /** Debits once per `requestId`, atomically with its ledger row. */
  debit(userId: string, micros: number, requestId: string, description: string): Promise<DebitResult>;
  /**
   * Takes `micros` from the balance into the hold `holdId` (created or grown), in one transaction, only when
   * the balance covers it: concurrent holds can never take the balance below zero.
   */
  hold(userId: string, holdId: string, micros: number): Promise<HoldResult>;
  /**
   * Ends a hold: debits `micros` (at most what is held) with a ledger row under the hold's id and returns the
   * rest to the balance. A second settle of the same id changes nothing. It never fails for an unreachable
   * database: such a settle is queued (`queued: true`) and lands once the database is back.
   */
  settle(userId: string, holdId: string, micros: number, description: string): Promise<DebitResult>;
  /** Returns every open hold to its balance (at start: work a stopped process held was never delivered). */
  releaseAllHolds(): Promise<number>;
  /** Sum of all debits of a user (the ledger), for audits and tests. */
  debitedMicros(userId: string): Promise<number>;
}

export type Visibility = 'public' | 'unlist' | 'private';
export type SortBy = 'score' | 'task_count' | 'created_at';

export interface AudioQuality {
  filename: string;
  duration_ms: number;
  language: string;
  quality: Record<string, number | boolean | string>;
  quality_passed: boolean;
  quality_reason: string;
}

export interface StoredSample {
  /** File name under the model's folder. */
  file: string;
  originalName: string;
  text: string;
  quality: AudioQuality;
}

export interface GeneratedSample {
  title: string;
  text: string;
  task_id: string;
  /** File name under the model's folder. */
  file: string;
}

export interface VoiceModelRecord {
  id: string;
  ownerId: string;
  type: 'tts' | 'svc';
  title: string;
  titleLanguage: string;
  description: string;
  /** File name under the model's folder, or '' when there is no cover. */
  coverFile: string;
  trainMode: 'fast' | 'full';
  state: 'created' | 'training' | 'trained' | 'failed';
  visibility: Visibility;
  tags: string[];
  languages: string[];
  likeCount: number;
  markCount: number;
  sharedCount: number;
  taskCount: number;
  lockVisibility: boolean;
  dmcaTakenDown: boolean;
  defaultText: string;
  source: string | null;
  samples: StoredSample[];
  generated: GeneratedSample[];
  voice: VoiceSettings;
  qualityCreatedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface ModelQuery {
  /** The caller: private models of others are never returned. */
  viewerId: string;
  pageSize: number;
  pageNumber: number;
  title?: string;
  tags?: string[];
  authorId?: string;
  languages?: string[];
  titleLanguages?: string[];
  sortBy: SortBy;
}

export interface ModelPage {
  total: number;
  items: VoiceModelRecord[];
}

export interface ModelPatch {
  title?: string;
  titleLanguage?: string;
  description?: string;
  tags?: string[];
  visibility?: Visibility;
  coverFile?: string;
}

/** A file already written atomically to the store's staging area, to be attached to a model. */
export interface StagedFile {
  stagedPath: string;
  /** File name it gets under the model's folder. */
  file: string;
}

/** Every method that reads or writes records is async so that a server database can implement it. */
export interface VoiceModelStore {
  /** Creates the row and moves its staged files in; a crash leaves either no model or the whole model. */
  create(model: VoiceModelRecord, files: StagedFile[]): Promise<VoiceModelRecord>;
  get(id: string): Promise<VoiceModelRecord | null>;
  list(query: ModelQuery): Promise<ModelPage>;
  /** Updates fields; a new cover replaces the old file after the commit. */
  update(id: string, patch: ModelPatch, files: StagedFile[]): Promise<VoiceModelRecord | null>;
  /** Deletes the row, then the model's files. */
  delete(id: string): Promise<boolean>;
  incrementTaskCount(id: string): Promise<void>;
  /** The bytes of one of a model's files (a sample, the cover). */
  openFile(id: string, file: string): Promise<Readable>;
  /** Writes bytes or a stream (as it arrives) to the staging area with fsync, for a later create/update. */
  stage(content: Uint8Array | Readable): Promise<string>;
  /** Removes staged files that were never attached (after a failed request). */
  discard(stagedPaths: string[]): Promise<void>;
}
