import { z } from 'zod';
import { mediaFormat, UnsupportedMediaFormatError } from '../media-format.js';
import { parseFrame, stringValues, type Carrier, type CarrierEvent } from './carrier.js';

const connected = z.object({ event: z.literal('websocket:connected'), 'content-type': z.string() }).passthrough();
const message = z.discriminatedUnion('event', [
  connected,
  z.object({ event: z.literal('websocket:dtmf'), digit: z.union([z.string().min(1).max(1), z.number().int().min(0).max(9)]) }).passthrough(),
  z.object({ event: z.literal('websocket:notify'), payload: z.object({ name: z.string() }).passthrough() }),
  z.object({ event: z.literal('websocket:cleared') }).passthrough(),
]);

/** `audio/l16;rate=16000` → the format; anything else is refused. */
function vonageFormat(contentType: string) {
  const match = /^audio\/l16\s*;\s*rate=(\d+)$/i.exec(contentType.trim());
  if (!match) throw new UnsupportedMediaFormatError('vonage', contentType);
  return mediaFormat('vonage', { encoding: 'l16', sampleRate: Number(match[1]) }, 'little');
}

/**
 * Vonage Voice API WebSockets (NCCO `connect` to a `websocket` endpoint): a `websocket:connected` text frame
 * first (its `content-type`, `audio/l16;rate=8000|16000`, and the NCCO's `headers`), then binary frames of
 * little-endian L16 audio, exactly 20 ms each, both ways. Text commands: `{action: 'clear'}` and
 * `{action: 'notify', payload}`, echoed as `websocket:notify` once the audio before it has played.
 * Vonage ends a stream by closing the socket.
 */
export const vonageCarrier: Carrier = {
  name: 'vonage',
  frameMs: 20,
  padFrames: true,
  parse(data, isBinary): CarrierEvent | null {
    if (isBinary) return { type: 'media', payload: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) };
    const m = parseFrame(message, data, isBinary);
    if (!m) return null;
    switch (m.event) {
      case 'websocket:connected': {
        const { event: _event, 'content-type': contentType, ...headers } = m;
        return { type: 'start', parameters: stringValues(headers), format: vonageFormat(contentType) };
      }
      case 'websocket:dtmf':
        return { type: 'dtmf', digit: String(m.digit) };
      case 'websocket:notify':
        return { type: 'mark', name: m.payload.name };
      default:
        return { type: 'other' };
    }
  },
  media: (_streamId, _format, payload) => Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength),
  mark: (_streamId, name) => JSON.stringify({ action: 'notify', payload: { name } }),
  clear: () => JSON.stringify({ action: 'clear' }),
};
