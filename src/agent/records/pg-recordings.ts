import { Readable } from 'node:stream';
import type { PgDatabase } from '../../service/store/pg-database.js';
import type { RecordingStore, RecordingWriter } from './recording-store.js';

export const pgRecordingDefaults = {
  /** A failed write is retried after this long, then twice as long each time up to `retryMaxMs`. */
  retryFirstMs: 200,
  retryMaxMs: 10_000,
  /** At the call's end, what the database has not taken is retried this long, then given up (and reported). */
  endWaitMs: 60_000,
  /** Rows read at once when a recording is served. */
  readRows: 64,
};

/** The table of recordings: a call's Ogg bytes as bytea pieces, in order by their offset (a call migration). */
export const recordingsMigrationSql = `
  CREATE TABLE call_recordings (
    call_id TEXT NOT NULL,
    byte_offset BIGINT NOT NULL,
    bytes BYTEA NOT NULL,
    PRIMARY KEY (call_id, byte_offset)
  );
`;

/** When each piece was written: retention finds by it the recordings whose call row was never written (a process killed mid-call). */
export const recordingTimesMigrationSql = `
  ALTER TABLE call_recordings ADD COLUMN written_at TIMESTAMPTZ NOT NULL DEFAULT now();
`;

/**
 * One call's recording written to PostgreSQL as it goes: each write a row at its offset, one after another
 * (so the recording has no gap), a failed one retried as it was (a row whose answer was lost is not added twice).
 */
class PgRecordingWriter implements RecordingWriter {
  private pending: Buffer[] = [];
  /** The row being written (or retried), exactly as first tried. */
  private row: { offset: number; bytes: Buffer } | undefined;
  private nextOffset = 0;
  private writing: Promise<void> | undefined;
  private retryMs = pgRecordingDefaults.retryFirstMs;
  private retryTimer: NodeJS.Timeout | undefined;
  private reported = false;
  private stopped = false;
  private ended: (() => void) | undefined;

  constructor(
    private readonly db: PgDatabase,
    private readonly callId: string,
    private readonly onError: (error: unknown) => void,
  ) {}

  write(bytes: Uint8Array): void {
    if (this.stopped) return;
    this.pending.push(Buffer.from(bytes));
    if (!this.retryTimer) this.next();
  }

  end(): Promise<void> {
    return new Promise<void>((resolve) => {
      const giveUp = setTimeout(() => {
        if (this.row || this.pending.length > 0) this.onError(new Error(`call ${this.callId}: the recording from byte ${this.nextOffset} could not be written to the database`));
        this.destroy();
        resolve();
      }, pgRecordingDefaults.endWaitMs).unref();
      this.ended = () => (clearTimeout(giveUp), resolve());
      if (!this.writing && !this.row && this.pending.length === 0) this.ended();
    });
  }

  destroy(): void {
    this.stopped = true;
    this.pending = [];
    this.row = undefined;
    if (this.retryTimer) clearTimeout(this.retryTimer);
  }

  private next(): void {
    if (this.writing || this.stopped) return;
    if (!this.row && this.pending.length > 0) {
      this.row = { offset: this.nextOffset, bytes: Buffer.concat(this.pending) };
      this.pending = [];
    }
    const row = this.row;
    if (!row) return this.ended?.();
    this.writing = this.db
      .query('INSERT INTO call_recordings (call_id, byte_offset, bytes) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [this.callId, row.offset, row.bytes])
      .then(
        () => {
          this.row = undefined;
          this.nextOffset = row.offset + row.bytes.length;
          this.retryMs = pgRecordingDefaults.retryFirstMs;
          this.writing = undefined;
          this.next();
        },
        (error: unknown) => {
          this.writing = undefined;
          if (!this.reported) this.onError(error);
          this.reported = true;
          this.retryTimer = setTimeout(() => {
            this.retryTimer = undefined;
            this.next();
          }, this.retryMs).unref();
          this.retryMs = Math.min(this.retryMs * 2, pgRecordingDefaults.retryMaxMs);
        },
      );
  }
}

/**
 * Calls' recordings in PostgreSQL (`--database` with `--record-audio`), like the speech service's voice model
 * files (bytea in the database): every agent instance of the fleet serves every recording, and a backup of the
 * database holds them. Kept as the call goes, about a second of audio a row.
 */
export class PgRecordings implements RecordingStore {
  constructor(private readonly db: PgDatabase) {}

  open(callId: string, onError: (error: unknown) => void): RecordingWriter {
    return new PgRecordingWriter(this.db, callId, onError);
  }

  async size(callId: string): Promise<number | undefined> {
    const { rows } = await this.db.query<{ size: number | null }>(
      'SELECT MAX(byte_offset + octet_length(bytes)) AS size FROM call_recordings WHERE call_id = $1',
      [callId],
    );
    return rows[0]?.size ?? undefined;
  }

  read(callId: string, start: number, end: number): Readable {
    const db = this.db;
    async function* pieces(): AsyncGenerator<Buffer> {
      let from = start;
      while (from <= end) {
        const { rows } = await db.query<{ byte_offset: number; bytes: Buffer }>(
          `SELECT byte_offset, bytes FROM call_recordings
           WHERE call_id = $1 AND byte_offset + octet_length(bytes) > $2 AND byte_offset <= $3
           ORDER BY byte_offset LIMIT $4`,
          [callId, from, end, pgRecordingDefaults.readRows],
        );
        if (rows.length === 0) return;
        for (const row of rows) {
          const piece = row.bytes.subarray(Math.max(0, from - row.byte_offset), end + 1 - row.byte_offset);
          yield piece;
          from = row.byte_offset + row.bytes.length;
        }
      }
    }
    return Readable.from(pieces());
  }
}
