import { z } from 'zod';
import { mediaFormat, muLaw8k } from '../media-format.js';
import { base64, commonEvent, parseFrame, stringValues, type Carrier, type CarrierEvent } from './carrier.js';

const start = z.object({
  event: z.literal('start'),
  stream_id: z.string().optional(),
  start: z
    .object({
      call_control_id: z.string().optional(),
      custom_parameters: z.record(z.string(), z.unknown()).optional(),
      media_format: z.object({ encoding: z.string(), sample_rate: z.coerce.number(), channels: z.coerce.number().optional() }).optional(),
    })
    .passthrough(),
});
const message = z.discriminatedUnion('event', [
  start,
  z.object({ event: z.literal('media'), media: z.object({ payload: z.string(), track: z.string().optional() }).passthrough() }),
  z.object({ event: z.literal('mark'), mark: z.object({ name: z.string() }) }),
  z.object({ event: z.literal('dtmf'), dtmf: z.object({ digit: z.string().min(1).max(1) }) }),
  z.object({ event: z.literal('stop') }),
  z.object({ event: z.enum(['connected', 'error']) }),
]);

/**
 * Telnyx media streaming (`stream_bidirectional_mode: rtp`): JSON frames with base64 RTP payloads in the codec of
 * `start.media_format` (PCMU, PCMA, or L16, which as an RTP payload is big-endian); `mark` and `clear` like Twilio.
 * Only inbound-track media is caller audio.
 */
export const telnyxCarrier: Carrier = {
  name: 'telnyx',
  frameMs: 20,
  padFrames: false,
  parse(data, isBinary): CarrierEvent | null {
    const m = parseFrame(message, data, isBinary);
    if (!m) return null;
    if (m.event === 'start') {
      const announced = m.start.media_format;
      return {
        type: 'start',
        streamId: m.stream_id,
        callId: m.start.call_control_id,
        parameters: stringValues(m.start.custom_parameters),
        format: announced ? mediaFormat('telnyx', { encoding: announced.encoding, sampleRate: announced.sample_rate, channels: announced.channels }, 'big') : muLaw8k,
      };
    }
    return commonEvent(m);
  },
  media: (_streamId, _format, payload) => `{"event":"media","media":{"payload":"${base64(payload)}"}}`,
  mark: (_streamId, name) => JSON.stringify({ event: 'mark', mark: { name } }),
  clear: () => JSON.stringify({ event: 'clear' }),
};
