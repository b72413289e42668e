import { z } from 'zod';
import { mediaFormat, muLaw8k, UnsupportedMediaFormatError, type MediaFormat } from '../media-format.js';
import { base64, commonEvent, parseFrame, stringValues, type Carrier, type CarrierEvent } from './carrier.js';

const start = z.object({
  event: z.literal('start'),
  start: z
    .object({
      callId: z.string().optional(),
      streamId: z.string().optional(),
      mediaFormat: z.object({ encoding: z.string(), sampleRate: z.coerce.number() }).optional(),
    })
    .passthrough(),
  extra_headers: z.union([z.string(), z.record(z.string(), z.unknown())]).optional(),
});
const message = z.discriminatedUnion('event', [
  start,
  z.object({ event: z.literal('media'), media: z.object({ payload: z.string(), track: z.string().optional() }).passthrough() }),
  z.object({ event: z.literal('playedStream'), name: z.string() }),
  z.object({ event: z.literal('dtmf'), dtmf: z.object({ digit: z.string().min(1).max(1) }) }),
  z.object({ event: z.literal('stop') }),
  z.object({ event: z.enum(['clearedAudio', 'connected']) }),
]);

/** `extraHeaders` of Plivo's `<Stream>` ("k1=v1,k2=v2"), or an object of them. */
function headers(extra: string | Record<string, unknown> | undefined): Record<string, string> {
  if (typeof extra !== 'string') return stringValues(extra);
  const out: Record<string, string> = {};
  for (const pair of extra.split(/[,;]/)) {
    const at = pair.indexOf('=');
    if (at > 0) out[pair.slice(0, at).trim()] = pair.slice(at + 1).trim();
  }
  return out;
}

const contentType = (format: MediaFormat) => (format.codec === 'l16' ? 'audio/x-l16' : 'audio/x-mulaw');

/**
 * Plivo audio streams (`<Stream bidirectional="true">`): JSON frames; caller audio in `media`, agent audio sent
 * as `playAudio` (audio/x-mulaw 8000 or audio/x-l16 8000/16000), `checkpoint` echoed as `playedStream` once
 * played, `clearAudio` to drop what is queued.
 */
export const plivoCarrier: Carrier = {
  name: 'plivo',
  frameMs: 20,
  padFrames: false,
  parse(data, isBinary): CarrierEvent | null {
    const m = parseFrame(message, data, isBinary);
    if (!m) return null;
    switch (m.event) {
      case 'start': {
        const announced = m.start.mediaFormat;
        const format = announced ? mediaFormat('plivo', announced) : muLaw8k;
        if (format.codec === 'pcma') throw new UnsupportedMediaFormatError('plivo', `${announced?.encoding}/${announced?.sampleRate}`);
        return { type: 'start', streamId: m.start.streamId, callId: m.start.callId, parameters: headers(m.extra_headers), format };
      }
      case 'playedStream':
        return { type: 'mark', name: m.name };
      default:
        return commonEvent(m);
    }
  },
  media: (_streamId, format, payload) =>
    `{"event":"playAudio","media":{"contentType":${JSON.stringify(contentType(format))},"sampleRate":${format.sampleRate},"payload":"${base64(payload)}"}}`,
  mark: (streamId, name) => JSON.stringify({ event: 'checkpoint', streamId, name }),
  clear: (streamId) => JSON.stringify({ event: 'clearAudio', streamId }),
};
