import { createReadStream, createWriteStream, mkdirSync, openSync } from 'node:fs';
import { readdir, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';

/** One call's recording as it is written: Ogg pages in order, then the end. */
export interface RecordingWriter {
  write(bytes: Uint8Array): void;
  /** Resolves once everything written is kept. */
  end(): Promise<void>;
  /** Stops writing after a failure; what was kept stays. */
  destroy(): void;
}

/**
 * Where calls' recordings are kept: files in a folder, or PostgreSQL with `--database` (`PgCallStore.recordings`).
 * A recording is read while it is still being written, as far as it goes.
 */
export interface RecordingStore {
  open(callId: string, onError: (error: unknown) => void): RecordingWriter;
  /** The recording's size in bytes; undefined when the call has none. */
  size(callId: string): Promise<number | undefined>;
  /** Bytes `start` to `end`, both included. */
  read(callId: string, start: number, end: number): Readable;
}

/** A call's recording in the recordings' folder. */
export const recordingPath = (folder: string, callId: string) => join(folder, `${callId}.ogg`);

/** A call id that cannot name a file outside the folder. */
const fileSafe = (callId: string) => !/[\\/]|^\.\.?$/.test(callId);

/** Recordings as `<call id>.ogg` files in a folder. */
export class RecordingFolder implements RecordingStore {
  constructor(readonly folder: string) {}

  open(callId: string, onError: (error: unknown) => void): RecordingWriter {
    return RecordingFolder.file(recordingPath(this.folder, callId), onError);
  }

  /** A writer of the file at `path` (its folder made if need be). */
  static file(path: string, onError: (error: unknown) => void): RecordingWriter {
    mkdirSync(dirname(path), { recursive: true });
    const file = createWriteStream(path, { fd: openSync(path, 'w') });
    file.on('error', onError);
    return {
      write: (bytes) => void file.write(bytes),
      end: () => new Promise<void>((resolve) => file.end(resolve)),
      destroy: () => file.destroy(),
    };
  }

  async size(callId: string): Promise<number | undefined> {
    if (!fileSafe(callId)) return undefined;
    return stat(recordingPath(this.folder, callId)).then((info) => (info.isFile() ? info.size : undefined), () => undefined);
  }

  read(callId: string, start: number, end: number): Readable {
    return createReadStream(recordingPath(this.folder, callId), { start, end });
  }

  /** Deletes the recordings untouched since `settledBefore` (epoch ms) whose call `kept` says is gone. */
  async deleteOrphans(kept: (callId: string) => Promise<boolean>, settledBefore: number): Promise<void> {
    const names = await readdir(this.folder).catch(() => [] as string[]);
    for (const name of names.filter((file) => file.endsWith('.ogg'))) {
      const path = join(this.folder, name);
      const { mtimeMs } = await stat(path);
      if (mtimeMs < settledBefore && !(await kept(name.slice(0, -'.ogg'.length)))) await rm(path, { force: true });
    }
  }
}
