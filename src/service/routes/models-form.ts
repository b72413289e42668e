import type { FastifyRequest } from 'fastify';
import { open } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { ServiceError } from '../accounts.js';

/** Upload limits of the model routes. */
export interface ModelUploadLimits {
  /** Largest voice sample file. */
  voiceBytes: number;
  /** Most voice samples per model. */
  voices: number;
  /** Largest cover image. */
  coverBytes: number;
  /** Largest whole upload (all files and fields). */
  totalBytes: number;
  /** Most text fields, and the longest one in bytes. */
  fields: number;
  fieldBytes: number;
}

export const defaults: ModelUploadLimits = {
  voiceBytes: 20 * 1024 * 1024,
  voices: 16,
  coverBytes: 5 * 1024 * 1024,
  totalBytes: 100 * 1024 * 1024,
  fields: 200,
  fieldBytes: 64 * 1024,
};

/** An uploaded file, written to the store's staging area as it arrived (never held whole in memory). */
export interface UploadedFile {
  filename: string;
  mimetype: string;
  size: number;
  stagedPath: string;
  /** The first bytes, to tell what the file is. */
  head: Uint8Array;
}

/** A form as lists of values per name: repeated fields keep their order. */
export interface ModelForm {
  fields: Map<string, string[]>;
  files: Map<string, UploadedFile[]>;
  /** Every staged upload: discard them once the request is done (attached ones have moved away by then). */
  staged: string[];
}

/** Writes an upload to the staging area and returns its path (VoiceModelStore.stage). */
export type Stage = (content: Uint8Array | Readable) => Promise<string>;

const headBytes = 64;

async function readHead(path: string): Promise<{ size: number; head: Uint8Array }> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    const head = new Uint8Array(Math.min(size, headBytes));
    await handle.read(head, 0, head.length, 0);
    return { size, head };
  } finally {
    await handle.close();
  }
}

class UploadTooLargeError extends ServiceError {
  constructor(what: string) {
    super(413, `${what}; send smaller files or fewer of them`);
    this.name = 'UploadTooLargeError';
  }
}

/** A multipart stream that broke (truncated, limits hit) is the client's fault: 400 or 413, never 500. */
function unreadableMultipart(error: unknown): Error {
  if (error instanceof ServiceError) return error;
  const { code, message } = error as { code?: string; message?: string };
  if (code === 'FST_REQ_FILE_TOO_LARGE' || code === 'FST_FILES_LIMIT' || code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT') {
    return new UploadTooLargeError(`the upload is over a limit (${message ?? code})`);
  }
  return new ServiceError(400, `multipart body could not be read (${message ?? 'broken stream'}); send a complete multipart/form-data body`);
}

function push<T>(map: Map<string, T[]>, name: string, value: T): void {
  const list = map.get(name);
  if (list) list.push(value);
  else map.set(name, [value]);
}

/**
 * Reads a multipart body (or an already parsed JSON/msgpack object, for PATCH) into a ModelForm: files are
 * streamed to the staging area as they arrive, anything over the limits is refused with 413 (and what was
 * staged removed). The caller discards `form.staged` when the request is done.
 */
export async function readModelForm(request: FastifyRequest, limits: ModelUploadLimits, stage: Stage, discard: (paths: string[]) => Promise<void>): Promise<ModelForm> {
  const form: ModelForm = { fields: new Map(), files: new Map(), staged: [] };
  const keep = async (name: string, filename: string, mimetype: string, content: Uint8Array | Readable): Promise<UploadedFile> => {
    const stagedPath = await stage(content);
    form.staged.push(stagedPath);
    const file = { filename, mimetype, stagedPath, ...(await readHead(stagedPath)) };
    push(form.files, name, file);
    return file;
  };
  if (!request.isMultipart()) {
    const body = request.body;
    if (body === undefined || body === null) return form;
    if (typeof body !== 'object' || Array.isArray(body)) {
      throw new ServiceError(400, 'body must be multipart/form-data or a JSON object of fields');
    }
    for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
      if (Array.isArray(value) && value.length === 0) form.fields.set(name, []);
      for (const item of Array.isArray(value) ? value : [value]) {
        if (item === null || item === undefined) continue;
        if (item instanceof Uint8Array) await keep(name, name, '', item);
        else push(form.fields, name, typeof item === 'string' ? item : JSON.stringify(item));
      }
    }
    return form;
  }
  let total = 0;
  const parts = request.parts({
    limits: {
      fileSize: Math.max(limits.voiceBytes, limits.coverBytes),
      files: limits.voices + 1,
      fields: limits.fields,
      fieldSize: limits.fieldBytes,
      parts: limits.voices + 1 + limits.fields,
    },
  });
  try {
    for await (const part of parts) {
      if (part.type === 'file') {
        const limit = part.fieldname === 'cover_image' ? limits.coverBytes : limits.voiceBytes;
        const file = await keep(part.fieldname, part.filename ?? part.fieldname, part.mimetype, part.file);
        if (part.file.truncated || file.size > limit) throw new UploadTooLargeError(`${part.fieldname} file ${part.filename} is over ${limit} bytes`);
        total += file.size;
        if (total > limits.totalBytes) throw new UploadTooLargeError(`upload is over ${limits.totalBytes} bytes`);
      } else {
        if (part.valueTruncated) throw new UploadTooLargeError(`field ${part.fieldname} is over ${limits.fieldBytes} bytes`);
        const value = String(part.value ?? '');
        total += value.length;
        push(form.fields, part.fieldname, value);
      }
    }
  } catch (error) {
    await discard(form.staged);
    throw unreadableMultipart(error);
  }
  return form;
}

/**
 * A list field as sent by different clients: repeated fields, a JSON array, or one comma-joined value
 * (what FormData makes of an array). `expected` lets a comma-joined value be split only when it fits.
 */
export function listField(values: string[] | undefined, expected?: number): string[] | undefined {
  if (!values) return undefined;
  if (values.length === 1) {
    const only = values[0]!.trim();
    if (only.startsWith('[')) {
      try {
        const parsed = JSON.parse(only) as unknown;
        if (Array.isArray(parsed)) return parsed.map((item) => String(item));
      } catch {
        // not JSON: fall through to the plain forms
      }
    }
    if (expected === undefined || expected > 1) {
      const split = only.split(',').map((item) => item.trim());
      if (expected === undefined) return split.filter((item) => item.length > 0);
      if (split.length === expected) return split;
    }
  }
  return values;
}
