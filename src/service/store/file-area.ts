import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';

const tempSuffix = '.tmp';

/**
 * The model files of the data directory. Bytes are written to `staging/` as a temp file, fsynced and renamed,
 * so a crash never leaves a half-written file under a final name; `sweep` removes whatever a crash left behind.
 */
export class FileArea {
  readonly stagingDir: string;
  readonly modelsDir: string;

  constructor(root: string) {
    this.stagingDir = join(root, 'staging');
    this.modelsDir = join(root, 'models');
  }

  async init(): Promise<void> {
    await mkdir(this.stagingDir, { recursive: true });
    await mkdir(this.modelsDir, { recursive: true });
  }

  modelDir(modelId: string): string {
    return join(this.modelsDir, safeName(modelId));
  }

  /** Writes bytes, or a stream as it arrives (an upload is never held whole), durably to a new staged file; returns its path. */
  async stage(content: Uint8Array | Readable): Promise<string> {
    const name = randomBytes(12).toString('hex');
    const temp = join(this.stagingDir, `${name}${tempSuffix}`);
    const final = join(this.stagingDir, `${name}.staged`);
    const handle = await open(temp, 'wx');
    try {
      try {
        if (content instanceof Uint8Array) await handle.writeFile(content);
        else for await (const chunk of content) await handle.write(chunk as Uint8Array);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temp, final);
    } catch (error) {
      // Disk full or any write failure: leave nothing half-written behind.
      await rm(temp, { force: true });
      throw error;
    }
    await syncDir(this.stagingDir);
    return final;
  }

  /** Moves staged files into a model's folder under their final names. */
  async adopt(modelId: string, files: { stagedPath: string; file: string }[]): Promise<void> {
    const dir = this.modelDir(modelId);
    await mkdir(dir, { recursive: true });
    for (const entry of files) await rename(entry.stagedPath, join(dir, safeName(entry.file)));
    await syncDir(dir);
    await syncDir(this.modelsDir);
  }

  async removeFiles(paths: string[]): Promise<void> {
    await Promise.all(paths.map((path) => rm(path, { force: true })));
  }

  async removeModel(modelId: string): Promise<void> {
    await rm(this.modelDir(modelId), { recursive: true, force: true });
  }

  /**
   * Startup cleanup: drops staged and temp files, folders of models the database does not hold, and files a
   * model does not reference (the old cover of an interrupted update). Only safe while no request is running.
   */
  async sweep(referenced: (modelId: string) => Set<string> | null): Promise<{ removed: number }> {
    let removed = 0;
    for (const name of await readdir(this.stagingDir)) {
      await rm(join(this.stagingDir, name), { force: true, recursive: true });
      removed++;
    }
    for (const modelId of await readdir(this.modelsDir)) {
      const keep = referenced(modelId);
      if (!keep) {
        await rm(join(this.modelsDir, modelId), { recursive: true, force: true });
        removed++;
        continue;
      }
      for (const file of await readdir(join(this.modelsDir, modelId))) {
        if (keep.has(file)) continue;
        await rm(join(this.modelsDir, modelId, file), { force: true, recursive: true });
        removed++;
      }
    }
    return { removed };
  }
}

/** Refuses path tricks in ids and file names that end up in paths. */
export function safeName(name: string): string {
  if (!/^[A-Za-z0-9._-]{1,128}$/.test(name) || name.startsWith('.')) {
    throw new RangeError(`unsafe file name ${JSON.stringify(name)}`);
  }
  return name;
}

async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
