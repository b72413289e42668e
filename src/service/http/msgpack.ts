import { Decoder, encode } from '@msgpack/msgpack';
import { ServiceError } from '../accounts.js';

/** Limits applied to every MessagePack body and WebSocket frame before anything is allocated for it. */
export interface MsgpackLimits {
  /** Deepest nesting of maps and arrays. */
  maxDepth: number;
  /** Longest string, in bytes. */
  maxStrLength: number;
  /** Longest binary field, in bytes. */
  maxBinLength: number;
  /** Most entries of one array. */
  maxArrayLength: number;
  /** Most keys of one map. */
  maxMapLength: number;
}

export const defaults: MsgpackLimits = {
  maxDepth: 16,
  maxStrLength: 1_000_000,
  maxBinLength: 32 * 1024 * 1024,
  maxArrayLength: 10_000,
  maxMapLength: 1_000,
};

/** A body or frame that is not well-formed MessagePack, or breaks a limit (400). */
export class MalformedMsgpackError extends ServiceError {
  constructor(detail: string) {
    super(400, `body is not valid MessagePack: ${detail}`);
    this.name = 'MalformedMsgpackError';
  }
}

function readLength(bytes: Uint8Array, view: DataView, at: number, size: 1 | 2 | 4): number {
  if (at + size > bytes.length) throw new MalformedMsgpackError('truncated length');
  return size === 1 ? bytes[at]! : size === 2 ? view.getUint16(at) : view.getUint32(at);
}

/**
 * Walks the encoded structure without decoding it, so a hostile body (deep nesting, huge declared
 * lengths, truncation, trailing bytes) is refused before any allocation.
 */
export function checkMsgpackShape(bytes: Uint8Array, limits: MsgpackLimits = defaults): void {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const pending: number[] = [1];
  let at = 0;
  const skip = (size: number, what: string, max?: number) => {
    if (max !== undefined && size > max) throw new MalformedMsgpackError(`${what} of ${size} bytes is over the limit of ${max}`);
    if (at + size > bytes.length) throw new MalformedMsgpackError(`truncated ${what}`);
    at += size;
  };
  const open = (entries: number, kind: 'array' | 'map') => {
    const max = kind === 'array' ? limits.maxArrayLength : limits.maxMapLength;
    if (entries > max) throw new MalformedMsgpackError(`${kind} of ${entries} entries is over the limit of ${max}`);
    if (entries === 0) return;
    if (pending.length >= limits.maxDepth) throw new MalformedMsgpackError(`nesting deeper than ${limits.maxDepth} levels`);
    pending.push(kind === 'map' ? entries * 2 : entries);
  };
  while (pending.length > 0) {
    if (pending[pending.length - 1] === 0) {
      pending.pop();
      continue;
    }
    pending[pending.length - 1]! -= 1;
    if (at >= bytes.length) throw new MalformedMsgpackError('truncated body');
    const head = bytes[at++]!;
    if (head <= 0x7f || head >= 0xe0 || head === 0xc0 || head === 0xc2 || head === 0xc3) continue;
    if (head >= 0x80 && head <= 0x8f) open(head & 0x0f, 'map');
    else if (head >= 0x90 && head <= 0x9f) open(head & 0x0f, 'array');
    else if (head >= 0xa0 && head <= 0xbf) skip(head & 0x1f, 'string', limits.maxStrLength);
    else {
      switch (head) {
        case 0xc4: case 0xc5: case 0xc6: {
          const size = head === 0xc4 ? 1 : head === 0xc5 ? 2 : 4;
          const length = readLength(bytes, view, at, size);
          at += size;
          skip(length, 'binary', limits.maxBinLength);
          break;
        }
        case 0xc7: case 0xc8: case 0xc9: {
          const size = head === 0xc7 ? 1 : head === 0xc8 ? 2 : 4;
          const length = readLength(bytes, view, at, size);
          at += size;
          skip(length + 1, 'extension', limits.maxBinLength);
          break;
        }
        case 0xca: skip(4, 'float'); break;
        case 0xcb: skip(8, 'float'); break;
        case 0xcc: case 0xd0: skip(1, 'integer'); break;
        case 0xcd: case 0xd1: skip(2, 'integer'); break;
        case 0xce: case 0xd2: skip(4, 'integer'); break;
        case 0xcf: case 0xd3: skip(8, 'integer'); break;
        case 0xd4: skip(2, 'extension'); break;
        case 0xd5: skip(3, 'extension'); break;
        case 0xd6: skip(5, 'extension'); break;
        case 0xd7: skip(9, 'extension'); break;
        case 0xd8: skip(17, 'extension'); break;
        case 0xd9: case 0xda: case 0xdb: {
          const size = head === 0xd9 ? 1 : head === 0xda ? 2 : 4;
          const length = readLength(bytes, view, at, size);
          at += size;
          skip(length, 'string', limits.maxStrLength);
          break;
        }
        case 0xdc: case 0xdd: case 0xde: case 0xdf: {
          const size = head === 0xdc || head === 0xde ? 2 : 4;
          const entries = readLength(bytes, view, at, size);
          at += size;
          open(entries, head <= 0xdd ? 'array' : 'map');
          break;
        }
        default:
          throw new MalformedMsgpackError(`byte 0x${head.toString(16)} at offset ${at - 1} is not a MessagePack type`);
      }
    }
  }
  if (at !== bytes.length) throw new MalformedMsgpackError(`${bytes.length - at} bytes after the end of the value`);
}

/** Checks the shape, then decodes with the same limits. */
export function decodeMsgpack(bytes: Uint8Array, limits: MsgpackLimits = defaults): unknown {
  checkMsgpackShape(bytes, limits);
  const decoder = new Decoder({
    maxStrLength: limits.maxStrLength,
    maxBinLength: limits.maxBinLength,
    maxArrayLength: limits.maxArrayLength,
    maxMapLength: limits.maxMapLength,
    maxExtLength: limits.maxBinLength,
  });
  try {
    return decoder.decode(bytes);
  } catch (error) {
    throw new MalformedMsgpackError(error instanceof Error ? error.message : String(error));
  }
}

/**
 * The encoded bytes in a buffer of their own size: `encode` answers with a view into a buffer grown by
 * doubling, which a socket holding unread frames would otherwise keep whole (twice the bytes queued).
 */
export function encodeMsgpack(value: unknown): Uint8Array {
  const bytes = encode(value, { ignoreUndefined: true });
  return bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice();
}
