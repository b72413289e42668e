import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export interface StreamTokenOptions {
  /**
   * HMAC key; a random one per process when absent (tokens then die with the process: they live seconds). Give
   * every instance behind one load balancer the same secret (`SHOAL_STREAM_SECRET`) so that a stream is admitted
   * by any instance, whichever one answered the webhook: the token carries all the stream needs.
   */
  secret: string | Buffer;
  /** How long an issued token admits a stream. */
  ttlMs: number;
}

export const streamTokenDefaults = { ttlMs: 60_000 };

/**
 * Short-lived tokens that admit a media stream: issued in the answer (TwiML `<Parameter>`, stream URL query),
 * checked when the stream starts, so a stream nobody answered for is refused. A token may be bound to a call
 * id (Twilio's CallSid); then only that call's stream is admitted with it.
 */
export class StreamTokens {
  private readonly options: StreamTokenOptions;

  constructor(options: Partial<StreamTokenOptions> = {}) {
    this.options = { secret: randomBytes(32), ...streamTokenDefaults, ...options };
  }

  /** A token admitting the stream of `callId` (or of any call when empty) for `ttlMs`. */
  issue(callId = '', ttlMs = this.options.ttlMs): string {
    const expires = (Date.now() + ttlMs).toString(36);
    return `${expires}.${this.sign(expires, callId)}`;
  }

  /** True when `token` was issued here, has not expired, and was bound to `callId` or to no call. */
  verify(token: string | undefined, callId: string | undefined, nowMs = Date.now()): boolean {
    const [expires, signature] = (token ?? '').split('.');
    if (!expires || !signature || parseInt(expires, 36) < nowMs) return false;
    return [callId ?? '', ''].some((subject) => safeEqual(signature, this.sign(expires, subject)));
  }

  private sign(expires: string, callId: string): string {
    return createHmac('sha256', this.options.secret).update(`${expires}|${callId}`).digest('base64url');
  }
}

/** Compares secrets in constant time, over fixed-length digests so that not even their lengths show. */
export function safeEqual(a: string, b: string): boolean {
  return timingSafeEqual(digest(a), digest(b));
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
