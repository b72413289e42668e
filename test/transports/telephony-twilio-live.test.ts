import twilio from 'twilio';
import { describe, expect, it } from 'vitest';
import { CallControlError, TwilioCallControl } from '../../src/transports/telephony/index.js';

// Against the real Twilio REST API; skipped unless TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN are set. It places no
// call: it checks that the credentials, the URLs and the request shapes Shoal uses are the ones Twilio answers.
const accountSid = process.env['TWILIO_ACCOUNT_SID'];
const authToken = process.env['TWILIO_AUTH_TOKEN'];

describe.skipIf(!accountSid || !authToken)('Twilio call control against the live REST API', () => {
  it('reaches the Calls resource with these credentials: hanging up a call that does not exist is a 404, not a 401', async () => {
    const control = new TwilioCallControl({ accountSid: accountSid!, authToken: authToken! });
    const error = await control.hangup(`CA${'0'.repeat(32)}`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CallControlError);
    expect((error as CallControlError).status).toBe(404);
  });

  it('signs webhooks the way Shoal checks them', () => {
    const params = { CallSid: 'CA1', From: '+14155550123' };
    const url = 'https://bot.example.test/twilio/voice';
    expect(twilio.validateRequest(authToken!, twilio.getExpectedTwilioSignature(authToken!, url, params), url, params)).toBe(true);
  });
});
