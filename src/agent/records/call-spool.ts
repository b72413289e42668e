import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { CallEnd, CallEntry, CallRecord, CallRecordStore } from './call-record.js';

/** One write of a call's record, as queued, retried and spooled. */
export type CallWrite =
  | { op: 'begin'; callId: string; record: Omit<CallRecord, 'entries' | 'finished' | 'charge'> }
  | { op: 'append'; callId: string; firstSeq: number; entries: readonly CallEntry[] }
  | { op: 'end'; callId: string; end: CallEnd };

export function applyWrite(store: CallRecordStore, write: CallWrite): Promise<void> {
  switch (write.op) {
    case 'begin':
      return store.begin(write.record);
    case 'append':
      return store.append(write.callId, write.entries, write.firstSeq);
    case 'end':
      return store.end(write.callId, write.end);
  }
}

export const spoolFileName = 'calls-spool.jsonl';

export interface ReplayReport {
  replayed: number;
  /** Writes the store still refused, kept in the spool for the next start. */
  kept: number;
  /** Lines that were not a write (a line cut short by a crash), dropped. */
  unreadable: number;
}

export interface ReplayOptions {
  /** Asked before each write: true stops the replay there, keeping the rest for the next one (the queue closes). */
  stop?(): boolean;
  /**
   * Told, in the same tick as the file is found empty, that every spooled write is in the store: nothing was
   * spooled while the replay ran, so writes may go straight to the store again.
   */
  emptied?(): void;
}

/**
 * Writes the store could not take in time (past the queue's bound, or at close): an append-only JSON Lines file,
 * fsync'd, replayed into the store at the next start and, by the write queue, once the store answers again.
 * Replays are safe to repeat: the store's writes are idempotent.
 */
export class CallSpool {
  constructor(readonly path: string) {}

  /** The file a replay reads, apart from the spool, which takes the writes spooled meanwhile. */
  get replayingPath(): string {
    return `${this.path}.replaying`;
  }

  /** Whether there are writes to replay. */
  get pending(): boolean {
    return existsSync(this.path) || existsSync(this.replayingPath);
  }

  /** Appends the writes and waits for them to be on disk. */
  add(writes: readonly CallWrite[]): void {
    if (writes.length === 0) return;
    this.write(this.path, writes.map((write) => `${JSON.stringify(write)}\n`).join(''), 'a');
  }

  /**
   * Writes the spooled writes into the store in order. A call whose write fails keeps it and its later writes in
   * the spool (the other calls go on). The spool is moved aside first, so that writes spooled while the replay
   * runs are kept; what is left goes back in front of them (a call's writes stay in order), and the file is
   * removed once it is all written.
   */
  async replay(store: CallRecordStore, options: ReplayOptions = {}): Promise<ReplayReport> {
    const report: ReplayReport = { replayed: 0, kept: 0, unreadable: 0 };
    this.takeAside();
    if (!existsSync(this.replayingPath)) {
      options.emptied?.();
      return report;
    }
    const left: CallWrite[] = [];
    const blocked = new Set<string>();
    for (const line of readFileSync(this.replayingPath, 'utf8').split('\n')) {
      if (line.trim() === '') continue;
      const write = readWrite(line);
      if (!write) {
        report.unreadable++;
        continue;
      }
      if (!blocked.has(write.callId) && !options.stop?.()) {
        try {
          await applyWrite(store, write);
          report.replayed++;
          continue;
        } catch {
          blocked.add(write.callId);
        }
      }
      left.push(write);
    }
    report.kept = left.length;
    // From here to the end without a pause: nothing is spooled in between.
    const since = existsSync(this.path) ? readFileSync(this.path, 'utf8') : '';
    if (left.length > 0 || since !== '') {
      const next = `${this.path}.next`;
      this.write(next, left.map((write) => `${JSON.stringify(write)}\n`).join('') + since, 'w');
      renameSync(next, this.path);
    } else if (existsSync(this.path)) {
      unlinkSync(this.path);
    }
    unlinkSync(this.replayingPath);
    if (left.length === 0 && since === '') options.emptied?.();
    return report;
  }

  /** Moves the spool to the replay's file; after a replay cut short by a crash, appends it to that one's. */
  private takeAside(): void {
    if (!existsSync(this.path)) return;
    if (!existsSync(this.replayingPath)) return renameSync(this.path, this.replayingPath);
    this.write(this.replayingPath, readFileSync(this.path, 'utf8'), 'a');
    unlinkSync(this.path);
  }

  private write(path: string, text: string, flags: 'a' | 'w'): void {
    mkdirSync(dirname(path), { recursive: true });
    const fd = openSync(path, flags);
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }
}

function readWrite(line: string): CallWrite | undefined {
  try {
    const write = JSON.parse(line) as Partial<CallWrite>;
    if (typeof write.callId !== 'string' || !['begin', 'append', 'end'].includes(write.op as string)) return undefined;
    return write as CallWrite;
  } catch {
    return undefined;
  }
}
