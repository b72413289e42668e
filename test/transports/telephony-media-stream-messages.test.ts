import { describe, expect, it } from 'vitest';
import { mediaStream, parseInboundMessage } from '../../src/transports/telephony/media-stream-messages.js';

// The six inbound messages as Twilio documents them (Media Streams, "WebSocket messages"), ids shortened.
const twilio = {
  connected: { event: 'connected', protocol: 'Call', version: '1.0.0' },
  start: {
    event: 'start',
    sequenceNumber: '1',
    start: {
      accountSid: 'AC1',
      streamSid: 'MZ1',
      callSid: 'CA1',
      tracks: ['inbound'],
      mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
      customParameters: { caller: 'Jane' },
    },
    streamSid: 'MZ1',
  },
  media: { event: 'media', sequenceNumber: '3', media: { track: 'inbound', chunk: '1', timestamp: '5', payload: '/////w==' }, streamSid: 'MZ1' },
  mark: { event: 'mark', sequenceNumber: '4', streamSid: 'MZ1', mark: { name: 'reply-1' } },
  dtmf: { event: 'dtmf', streamSid: 'MZ1', sequenceNumber: '5', dtmf: { track: 'inbound_track', digit: '7' } },
  stop: { event: 'stop', sequenceNumber: '6', streamSid: 'MZ1', stop: { accountSid: 'AC1', callSid: 'CA1' } },
};
const parse = (message: unknown) => parseInboundMessage(JSON.stringify(message));

describe('parseInboundMessage', () => {
  it('reads each documented Twilio message whole, fields it does not model included', () => {
    for (const message of Object.values(twilio)) expect(parse(message)).toEqual(message);
  });

  it('refuses each message kind without the fields it needs', () => {
    const broken = [
      { event: 'start', streamSid: 'MZ1' }, // no start object
      { event: 'start', start: { streamSid: '' } }, // empty stream id
      { event: 'start', start: { streamSid: 'MZ1', mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: '8000' } } },
      { event: 'start', start: { streamSid: 'MZ1', customParameters: { caller: 7 } } },
      { event: 'media', media: { track: 'inbound' } }, // no payload
      { event: 'media', media: { payload: 7 } },
      { event: 'media', media: { payload: '', timestamp: true } },
      { event: 'mark', mark: {} },
      { event: 'mark', mark: { name: 7 } },
      { event: 'mark', mark: null },
      { event: 'mark' },
      { event: 'dtmf', dtmf: { digit: '' } },
      { event: 'dtmf', dtmf: { digit: '12' } },
      { event: 'dtmf' },
      { event: 'hangup' },
      { streamSid: 'MZ1' },
      [],
      'connected',
    ];
    for (const message of broken) expect(parse(message), JSON.stringify(message)).toBeNull();
  });

  it('accepts the optional fields in both shapes Twilio has sent them', () => {
    expect(parse({ event: 'media', media: { payload: '', timestamp: 20 } })).not.toBeNull();
    expect(parse({ event: 'start', start: {} })).not.toBeNull(); // the stream id may come at the top level only
  });

  it('returns null for text that is not JSON, and for a frame over maxMessageBytes, without parsing it', () => {
    expect(parseInboundMessage('{"event":')).toBeNull();
    const padded = (length: number) => {
      const base = JSON.stringify({ ...twilio.media, pad: '' });
      return base.replace('"pad":""', `"pad":"${'x'.repeat(length - base.length)}"`);
    };
    expect(padded(mediaStream.maxMessageBytes)).toHaveLength(mediaStream.maxMessageBytes);
    expect(parseInboundMessage(padded(mediaStream.maxMessageBytes))).not.toBeNull();
    expect(parseInboundMessage(padded(mediaStream.maxMessageBytes + 1))).toBeNull();
  });
});
