import type { FastifyReply } from 'fastify';
import { ServiceError } from '../accounts.js';

/**
 * Bounds the HTTP TTS responses being synthesised at once. A response holds its place from admission until
 * its connection closes; beyond the bound a request is refused at once (503, Retry-After 1 s) before any
 * credit is held or work started, so the responses in progress keep their pace.
 */
export class StreamAdmission {
  private open = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`ttsStreams must be a positive integer, got ${capacity}`);
  }

  get streaming(): number {
    return this.open;
  }

  admit(reply: FastifyReply): void {
    if (this.open >= this.capacity) {
      throw new ServiceError(503, `the server is synthesising ${this.open} responses, its limit; retry in a second`, 1);
    }
    this.open++;
    // A streamed TTS response carries about a dozen 'close' listeners (gate, probes, billing, abort, fastify's
    // stream plumbing), a fixed number per response: raise Node's leak warning threshold above it.
    reply.raw.setMaxListeners(Math.max(reply.raw.getMaxListeners(), 20));
    reply.raw.once('close', () => this.open--);
  }
}
