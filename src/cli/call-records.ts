import type { IncomingMessage, ServerResponse } from 'node:http';
import { createHash, timingSafeEqual } from 'node:crypto';
import { join } from 'node:path';
import { defaultDataDir } from './records-options.js';
import { sendRecording } from './recording-response.js';
import {
  CallSpool,
  CallWriteQueue,
  parseRedaction,
  RecordingFolder,
  spoolFileName,
  SqliteCallStore,
  type CallQuery,
  type CallRecords,
  type CallRecordStore,
  type RecordingStore,
  type RecordsLog,
  type WriteQueueOptions,
} from '../agent/index.js';

export const recordsDefaults = {
  dataDir: defaultDataDir,
  /** How often old records are deleted under `--keep-calls`, ms. */
  retentionEveryMs: 60 * 60 * 1000,
  /** A fleet's instance runs retention when no other has for the period less this, ms. */
  retentionSlackMs: 60 * 1000,
  /** A recording untouched this long whose record is gone is deleted, ms. */
  recordingSettledMs: 60_000,
};

/** The `shoal agent` / `shoal talk` options of call records. */
export interface RecordsCommandOptions {
  /** Where call records are kept (`--data-dir`). */
  dataDir?: string;
  /** `--database postgres://…`: keep them in PostgreSQL instead, shared by every instance given the same URL. */
  database?: string;
  /** `--no-call-records` sets this false. */
  callRecords?: boolean;
  /** `--keep-calls 30d`: records older than this are deleted. */
  keepCalls?: string;
  /** `--redact digits,cards,emails`. */
  redact?: string;
  /** `--record-audio`: each call's audio in `<data dir>/recordings`. */
  recordAudio?: boolean;
}

/** Where `--record-audio` puts the calls' audio: `<data dir>/recordings/<call id>.ogg`. */
export const recordingsDir = (dataDir: string) => join(dataDir, 'recordings');

/** `30d`, `12h`, `90m`, `3600s` in ms; a RangeError saying the form otherwise. */
export function parseAge(value: string): number {
  const match = /^(\d+)\s*([dhms])$/.exec(value.trim());
  if (!match) throw new RangeError(`--keep-calls takes an age such as 30d, 12h or 90m, not "${value}"`);
  const unit = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000 }[match[2] as 'd' | 'h' | 'm' | 's'];
  return Number(match[1]) * unit;
}

export interface OpenedRecords {
  records: CallRecords;
  store: CallRecordStore;
  /** Where the calls' audio is: PostgreSQL with `--database`, else the data folder's `recordings`. */
  recordings: RecordingStore;
  close(): Promise<void>;
}

/** The store `--database` (PostgreSQL) or `--data-dir` (SQLite) names. */
export async function openCallStore(options: Pick<RecordsCommandOptions, 'dataDir' | 'database'>, onError?: (error: unknown) => void): Promise<CallRecordStore> {
  if (options.database === undefined) return new SqliteCallStore(options.dataDir ?? recordsDefaults.dataDir);
  if (!/^postgres(ql)?:\/\//i.test(options.database)) throw new RangeError(`--database must be a postgres:// or postgresql:// URL, got ${JSON.stringify(options.database)}`);
  const { PgCallStore } = await import('../agent/records/pg-call-store.js');
  return PgCallStore.open(options.database, onError ? { onError } : {});
}

export interface RecordsWriting {
  /** Told when writes start failing and when they recover (the agent's pino logger). */
  log?: RecordsLog;
  queue?: Omit<WriteQueueOptions, 'spool' | 'log'>;
}

/**
 * Opens the call records of `--database` or `--data-dir` (undefined with `--no-call-records`), writing first what
 * a previous run left in the spool (`calls-spool.jsonl` in the data folder), and deleting what `--keep-calls`
 * says is too old at start and hourly; on a shared database, one instance of the fleet does it.
 */
export async function openCallRecords(options: RecordsCommandOptions, onError: (error: unknown) => void, writing: RecordsWriting = {}): Promise<OpenedRecords | undefined> {
  if (options.callRecords === false) return undefined;
  const redact = options.redact ? parseRedaction(options.redact) : [];
  const keepMs = options.keepCalls ? parseAge(options.keepCalls) : undefined;
  const dataDir = options.dataDir ?? recordsDefaults.dataDir;
  const store = await openCallStore(options, onError);
  const log = writing.log ?? { warn: (details, message) => onError(new Error(`${message} ${JSON.stringify(details)}`)) };
  const spool = new CallSpool(join(options.dataDir ?? recordsDefaults.dataDir, spoolFileName));
  const replay = await spool.replay(store).catch((error: unknown) => (onError(error), undefined));
  if (replay && replay.replayed + replay.kept + replay.unreadable > 0) log.warn({ ...replay, spool: spool.path }, 'call records: the spool of the last run written to the store');
  const folder = new RecordingFolder(recordingsDir(dataDir));
  const recordings = recordingStoreOf(store) ?? folder;
  const sweep = async () => {
    if (keepMs === undefined) return;
    // A little under the period, so that this instance's own next turn is not refused by its last one.
    const claimed = !store.claimSweep || (await store.claimSweep(recordsDefaults.retentionEveryMs - recordsDefaults.retentionSlackMs));
    if (claimed) await store.deleteBefore(new Date(Date.now() - keepMs).toISOString());
    // Recordings on this instance's disk: each instance deletes its own whose record is gone (in PostgreSQL, they
    // go with their record).
    await folder.deleteOrphans(async (callId) => (await store.get(callId)) !== undefined, Date.now() - recordsDefaults.recordingSettledMs);
  };
  await sweep().catch(onError);
  const timer = keepMs === undefined ? undefined : setInterval(() => void sweep().catch(onError), recordsDefaults.retentionEveryMs).unref();
  const writes = new CallWriteQueue(store, { ...writing.queue, spool, log });
  return {
    records: { store, redact, writes, onError, ...(options.recordAudio ? (recordings === folder ? { recordingsDir: folder.folder } : { recordings }) : {}) },
    store,
    recordings,
    close: async () => {
      if (timer) clearInterval(timer);
      await writes.close();
      await store.close();
    },
  };
}

/** The recordings a store keeps beside the records (PostgreSQL's), if it does. */
function recordingStoreOf(store: CallRecordStore): RecordingStore | undefined {
  return (store as { recordings?: RecordingStore }).recordings;
}

/** A path segment decoded, or as it is when it is not valid percent-encoding. */
function decoded(piece: string): string {
  try {
    return decodeURIComponent(piece);
  } catch {
    return piece;
  }
}

const digest = (value: string) => createHash('sha256').update(value).digest();

function send(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}

/** The filters of `GET /api/calls` from its query string. */
export function queryOf(params: URLSearchParams): CallQuery {
  const number = (name: string) => {
    const value = params.get(name);
    if (value === null) return undefined;
    const parsed = Number(value);
    if (!Number.isFinite(parsed) || parsed < 0) throw new RangeError(`${name} must be a number of at least 0, got "${value}"`);
    return parsed;
  };
  const text = (name: string) => params.get(name) ?? undefined;
  const query: CallQuery = {};
  for (const [key, name] of [['since', 'since'], ['until', 'until'], ['from', 'from'], ['to', 'to'], ['endedBy', 'ended_by'], ['text', 'q'], ['before', 'before']] as const) {
    const value = text(name);
    if (value !== undefined) query[key] = value;
  }
  for (const name of ['since', 'until'] as const) {
    if (query[name] === undefined) continue;
    const time = Date.parse(query[name]!);
    if (Number.isNaN(time)) throw new RangeError(`${name} must be an ISO time such as 2026-11-28T14:00:00Z, got "${query[name]}"`);
    // Stored times are full ISO strings (with milliseconds): compare like with like.
    query[name] = new Date(time).toISOString();
  }
  const slower = number('slow_ms');
  if (slower !== undefined) query.slowerThanMs = slower;
  const limit = number('limit');
  if (limit !== undefined) query.limit = Math.max(1, Math.floor(limit));
  if (params.get('failed_tools') === 'true' || params.get('failed_tools') === '1') query.failedTools = true;
  return query;
}

/**
 * `GET /api/calls` (filters: since, until, from, to, ended_by, q, slow_ms, failed_tools, limit, before) and
 * `GET /api/calls/{id}` (with `audio`, the recording's address, when the call was recorded) and
 * `GET /api/calls/{id}/audio` (the recording, with byte ranges), behind the agent's access token on every address: without a token configured the API
 * answers 403, with a wrong or missing one 401.
 */
export function callRecordsApi(store: CallRecordStore, accessToken: string | undefined, audio?: string | RecordingStore) {
  const recordings = typeof audio === 'string' ? new RecordingFolder(audio) : audio;
  return (request: IncomingMessage, response: ServerResponse): boolean => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname !== '/api/calls' && !url.pathname.startsWith('/api/calls/')) return false;
    if (!accessToken) {
      send(response, 403, { status: 403, message: 'the call records API needs an access token: start the agent with SHOAL_AGENT_TOKEN (or --access-token-file FILE)' });
      return true;
    }
    const given = /^Bearer\s+(.+)$/i.exec(request.headers.authorization ?? '')?.[1]?.trim() ?? url.searchParams.get('access_token');
    if (!given || !timingSafeEqual(digest(given), digest(accessToken))) {
      send(response, 401, { status: 401, message: 'send the agent\'s access token: Authorization: Bearer <token> (or ?access_token=)' });
      return true;
    }
    if (request.method !== 'GET') {
      send(response, 405, { status: 405, message: 'call records are read-only: use GET' });
      return true;
    }
    const [id, part, ...rest] = url.pathname.slice('/api/calls/'.length).split('/').map(decoded);
    let answer: Promise<unknown>;
    if (part === 'audio' && rest.length === 0 && id && recordings) {
      answer = sendRecording(request, response, recordings, id).then((sent) => sent || send(response, 404, { status: 404, message: `no recording of call ${id} (calls are recorded with --record-audio)` }));
    } else if (part !== undefined) {
      answer = Promise.resolve(send(response, 404, { status: 404, message: `no such path: ${url.pathname}; try /api/calls/{id} or /api/calls/{id}/audio` }));
    } else if (id) {
      answer = store.get(id).then(async (record) => {
        if (!record) return send(response, 404, { status: 404, message: `no call ${id}` });
        const recorded = recordings !== undefined && (await recordings.size(id)) !== undefined;
        send(response, 200, recorded ? { ...record, audio: `/api/calls/${encodeURIComponent(id)}/audio` } : record);
      });
    } else {
      answer = Promise.resolve()
        .then(() => queryOf(url.searchParams))
        .then((query) => store.list(query))
        .then((page) => send(response, 200, page));
    }
    answer.catch((error: unknown) => {
      const bad = error instanceof RangeError;
      send(response, bad ? 400 : 500, { status: bad ? 400 : 500, message: bad ? error.message : 'could not read the call records' });
    });
    return true;
  };
}
