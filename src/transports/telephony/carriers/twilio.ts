import { mediaFormat, muLaw8k, UnsupportedMediaFormatError } from '../media-format.js';
import { parseInboundMessage } from '../media-stream-messages.js';
import { base64, commonEvent, type Carrier, type CarrierEvent } from './carrier.js';

/**
 * Twilio Media Streams (`<Connect><Stream>`): JSON text frames, base64 mu-law 8 kHz both ways, `mark` echoed
 * once played, `clear`; custom parameters from the TwiML's `<Parameter>`s arrive in `start.customParameters`.
 */
export const twilioCarrier: Carrier = {
  name: 'twilio',
  frameMs: 20,
  padFrames: false,
  parse(data, isBinary): CarrierEvent | null {
    const message = isBinary ? null : parseInboundMessage(data.toString());
    if (!message) return null;
    switch (message.event) {
      case 'start': {
        const announced = message.start.mediaFormat;
        const format = announced ? mediaFormat('twilio', announced) : muLaw8k;
        if (format.codec !== 'pcmu') throw new UnsupportedMediaFormatError('twilio', `${announced?.encoding}/${announced?.sampleRate} (Twilio streams carry audio/x-mulaw 8000 only)`);
        return {
          type: 'start',
          streamId: message.start.streamSid ?? message.streamSid,
          callId: message.start.callSid,
          parameters: message.start.customParameters ?? {},
          format,
        };
      }
      default:
        return commonEvent(message);
    }
  },
  // Fifty frames a second per call: the base64 text (JSON-safe as it is) is spliced in, not re-serialised.
  media: (streamSid, _format, payload) => `{"event":"media","streamSid":${JSON.stringify(streamSid)},"media":{"payload":"${base64(payload)}"}}`,
  mark: (streamSid, name) => JSON.stringify({ event: 'mark', streamSid, mark: { name } }),
  clear: (streamSid) => JSON.stringify({ event: 'clear', streamSid }),
};
