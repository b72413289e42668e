import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { CallEnd, CallEntry, CallRecord, CallRecordStore } from './call-record.js';

/** One write of a call's record, as queued, retried and spooled. */
export type CallWrite =
  | { op: 'begin'; callId: string; record: Omit<CallRecord, 'entries' | 'finished'> }
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

/**
 * Writes the store could not take before the process closed (or past the queue's bound): an append-only JSON
 * Lines file, fsync'd, replayed into the store at the next start. Replays are safe to repeat: the store's writes
 * are idempotent.
 */
export class CallSpool {
  constructor(readonly path: string) {}

  /** Appends the writes and waits for them to be on disk. */
  add(writes: readonly CallWrite[]): void {
    if (writes.length === 0) return;
    mkdirSync(dirname(this.path), { recursive: true });
    const fd = openSync(this.path, 'a');
    try {
      writeSync(fd, writes.map((write) => `${JSON.stringify(write)}\n`).join(''));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }

  /**
   * Writes the spooled writes into the store in order and removes the file. A call whose write fails keeps it and
   * its later writes in the spool (the other calls go on); the file is then replaced by what is left.
   */
  async replay(store: CallRecordStore): Promise<ReplayReport> {
    const report: ReplayReport = { replayed: 0, kept: 0, unreadable: 0 };
    if (!existsSync(this.path)) return report;
    const left: CallWrite[] = [];
    const blocked = new Set<string>();
    for (const line of readFileSync(this.path, 'utf8').split('\n')) {
      if (line.trim() === '') continue;
      const write = readWrite(line);
      if (!write) {
        report.unreadable++;
        continue;
      }
      if (!blocked.has(write.callId)) {
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
    if (left.length === 0) {
      unlinkSync(this.path);
      return report;
    }
    const next = new CallSpool(`${this.path}.next`);
    if (existsSync(next.path)) unlinkSync(next.path);
    next.add(left);
    renameSync(next.path, this.path);
    return report;
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
