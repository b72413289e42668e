import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RecordingStore } from '../agent/index.js';

/** The bytes a `Range: bytes=…` header asks of a file this long: undefined for the whole file, 'bad' when none can be served. */
export function byteRange(header: string | undefined, size: number): { start: number; end: number } | 'bad' | undefined {
  if (header === undefined) return undefined;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return 'bad';
  if (match[1] === '') {
    const suffix = Number(match[2]);
    return suffix === 0 || size === 0 ? 'bad' : { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(match[1]);
  const end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  return start >= size || end < start ? 'bad' : { start, end };
}

/**
 * Sends a call's recording (Ogg Opus) from where it is kept (a folder, PostgreSQL), the whole of it (200) or the
 * byte range asked for (206 with Content-Range); 416 with its size when the range cannot be served. A recording
 * still being written is served as far as it goes. False when the call has no recording.
 */
export async function sendRecording(request: IncomingMessage, response: ServerResponse, recordings: RecordingStore, callId: string): Promise<boolean> {
  const size = await recordings.size(callId);
  if (size === undefined) return false;
  const range = byteRange(request.headers.range, size);
  const headers = { 'content-type': 'audio/ogg', 'accept-ranges': 'bytes', 'cache-control': 'no-store' };
  if (range === 'bad') {
    const message = JSON.stringify({ status: 416, message: `the recording has ${size} bytes: ask for a range such as bytes=0-${Math.max(0, size - 1)}` });
    response.writeHead(416, { ...headers, 'content-type': 'application/json', 'content-range': `bytes */${size}` });
    response.end(message);
    return true;
  }
  const { start, end } = range ?? { start: 0, end: size - 1 };
  response.writeHead(range ? 206 : 200, {
    ...headers,
    'content-length': Math.max(0, end - start + 1),
    ...(range ? { 'content-range': `bytes ${start}-${end}/${size}` } : {}),
  });
  if (end < start) {
    response.end();
    return true;
  }
  recordings
    .read(callId, start, end)
    .on('error', () => response.destroy())
    .pipe(response);
  return true;
}
