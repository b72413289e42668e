import { openAsBlob } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { Readable } from 'node:stream';
import { InvalidRequestError } from './errors.js';

/** Audio or file content given as bytes, a Blob, a file path, or a stream (Node or web). */
export type FileInput = Uint8Array | ArrayBuffer | Blob | string | NodeJS.ReadableStream | ReadableStream<Uint8Array>;

function isNodeStream(value: unknown): value is NodeJS.ReadableStream {
  return value instanceof Readable || (typeof value === 'object' && value !== null && typeof (value as NodeJS.ReadableStream).pipe === 'function');
}

async function drain(stream: AsyncIterable<unknown>): Promise<Uint8Array> {
  const parts: Buffer[] = [];
  for await (const part of stream) parts.push(typeof part === 'string' ? Buffer.from(part) : Buffer.from(part as Uint8Array));
  return Buffer.concat(parts);
}

/** Reads any FileInput into memory; streams are drained here, which is what makes their requests retryable. */
export async function readBytes(input: FileInput): Promise<Uint8Array> {
  if (typeof input === 'string') {
    try {
      return await readFile(input);
    } catch (error) {
      throw new InvalidRequestError(`cannot read ${input}: ${(error as Error).message}`);
    }
  }
  if (input instanceof Uint8Array) return input;
  if (input instanceof ArrayBuffer) return new Uint8Array(input);
  if (input instanceof Blob) return new Uint8Array(await input.arrayBuffer());
  if (input instanceof ReadableStream) return drain(input as unknown as AsyncIterable<Uint8Array>);
  if (isNodeStream(input)) return drain(input as unknown as AsyncIterable<unknown>);
  throw new InvalidRequestError('audio must be bytes, a Blob, a file path or a readable stream');
}

/** A Blob for a multipart file part; paths are opened lazily by the runtime, streams are buffered. */
export async function toBlob(input: FileInput): Promise<Blob> {
  if (input instanceof Blob) return input;
  if (typeof input === 'string') {
    try {
      return await openAsBlob(input);
    } catch (error) {
      throw new InvalidRequestError(`cannot read ${input}: ${(error as Error).message}`);
    }
  }
  return new Blob([(await readBytes(input)) as Uint8Array<ArrayBuffer>]);
}

/** The file name to send for a part: the path's own name, else `fallback`. */
export function fileName(input: FileInput, fallback: string): string {
  if (typeof input === 'string') return basename(input);
  if (typeof File !== 'undefined' && input instanceof File && input.name) return input.name;
  return fallback;
}
