import { z } from 'zod';
import { mediaFormat } from '../media-format.js';
import { base64, commonEvent, parseFrame, stringValues, type Carrier, type CarrierEvent } from './carrier.js';

const start = z.object({
  event: z.literal('start'),
  stream_sid: z.string().optional(),
  start: z
    .object({
      stream_sid: z.string().optional(),
      call_sid: z.string().optional(),
      custom_parameters: z.record(z.string(), z.unknown()).optional(),
      media_format: z.object({ encoding: z.string(), sample_rate: z.coerce.number() }).passthrough().optional(),
    })
    .passthrough(),
});
const message = z.discriminatedUnion('event', [
  start,
  z.object({ event: z.literal('media'), media: z.object({ payload: z.string() }).passthrough() }),
  z.object({ event: z.literal('mark'), mark: z.object({ name: z.string() }) }),
  z.object({ event: z.literal('dtmf'), dtmf: z.object({ digit: z.string().min(1).max(1) }).passthrough() }),
  z.object({ event: z.literal('stop') }),
  z.object({ event: z.enum(['connected', 'clear']) }),
]);

/**
 * Exotel Voicebot/Stream applet: Twilio-like JSON frames with snake_case fields; audio is raw 16-bit
 * little-endian PCM ("slin"), 8 kHz by default, base64 in `media.payload` both ways (`media_format.encoding`
 * says `base64`, meaning exactly that), in chunks of whole 20 ms; `mark` echoed, `clear`.
 */
export const exotelCarrier: Carrier = {
  name: 'exotel',
  frameMs: 20,
  padFrames: true,
  parse(data, isBinary): CarrierEvent | null {
    const m = parseFrame(message, data, isBinary);
    if (!m) return null;
    if (m.event === 'start') {
      const announced = m.start.media_format;
      const encoding = !announced || /^(base64|raw|slin|pcm)/i.test(announced.encoding) ? 'l16' : announced.encoding;
      return {
        type: 'start',
        streamId: m.start.stream_sid ?? m.stream_sid,
        callId: m.start.call_sid,
        parameters: stringValues(m.start.custom_parameters),
        format: mediaFormat('exotel', { encoding, sampleRate: announced?.sample_rate ?? 8_000 }, 'little'),
      };
    }
    return commonEvent(m);
  },
  media: (streamSid, _format, payload) => `{"event":"media","stream_sid":${JSON.stringify(streamSid)},"media":{"payload":"${base64(payload)}"}}`,
  mark: (streamSid, name) => JSON.stringify({ event: 'mark', stream_sid: streamSid, mark: { name } }),
  clear: (streamSid) => JSON.stringify({ event: 'clear', stream_sid: streamSid }),
};
