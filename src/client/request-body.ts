import { encode } from '@msgpack/msgpack';
import type { RequestBody } from './http.js';

export function jsonBody(value: unknown): RequestBody {
  const bytes = Buffer.from(JSON.stringify(value));
  return { make: () => bytes, contentType: 'application/json', replayable: true };
}

export function msgpackBody(value: unknown): RequestBody {
  const bytes = encode(value, { ignoreUndefined: true });
  return { make: () => bytes, contentType: 'application/msgpack', replayable: true };
}
