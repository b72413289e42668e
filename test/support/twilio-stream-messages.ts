/** Twilio Media Streams messages as Twilio sends them (`<Connect><Stream>` with `<Parameter>`s), for stream tests. */

/** The `start` message of stream MZ0001 of call `callSid`, announcing mu-law 8 kHz. */
export function twilioStart(customParameters: Record<string, string> = {}, callSid = 'CA0001') {
  return {
    event: 'start',
    sequenceNumber: '1',
    streamSid: 'MZ0001',
    start: {
      accountSid: 'AC0001',
      streamSid: 'MZ0001',
      callSid,
      tracks: ['inbound'],
      customParameters,
      mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
    },
  };
}
