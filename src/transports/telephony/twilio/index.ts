export { TwilioCallControl, type TwilioCallControlOptions } from './twilio-call-control.js';
export { TwilioWebhooks, twilioWebhookDefaults, publicStreamUrl, publicUrlOf, BodyTooLargeError, type TwilioWebhookOptions } from './webhooks.js';
export { connectTwiml, transferTwiml, type StreamTwiml } from './twiml.js';
