import twilio from 'twilio';
import { isPhoneNumber, isSipUri, TransferTargetError, type TransferTarget } from '../call-control.js';

export interface StreamTwiml {
  /** wss://…/telephony */
  streamUrl: string;
  /** `<Parameter>`s of the stream: they arrive in `start.customParameters`. */
  parameters: Record<string, string>;
  /** Where Twilio reports the stream's start, stop and errors. */
  statusCallbackUrl?: string;
}

/**
 * The answer that connects a call to the agent both ways: `<Connect><Stream>` (a one-way `<Start><Stream>`
 * would leave the agent unheard). When the stream ends, Twilio moves on to the next verb: there is none, so the call ends.
 */
export function connectTwiml(stream: StreamTwiml): string {
  const response = new twilio.twiml.VoiceResponse();
  const connect = response.connect();
  const element = connect.stream({ url: stream.streamUrl, ...(stream.statusCallbackUrl ? { statusCallback: stream.statusCallbackUrl } : {}) });
  for (const [name, value] of Object.entries(stream.parameters)) element.parameter({ name, value });
  return response.toString();
}

/** Refuses the call before it is answered (no charge): the caller hears a busy signal, and Twilio may fail over. */
export function rejectTwiml(reason: 'busy' | 'rejected'): string {
  const response = new twilio.twiml.VoiceResponse();
  response.reject({ reason });
  return response.toString();
}

/** Replaces the call's TwiML: an optional announcement, then a `<Dial>` to the number or SIP URI. */
export function transferTwiml(target: TransferTarget): string {
  const response = new twilio.twiml.VoiceResponse();
  if (target.announce) response.say(target.announce);
  if (isPhoneNumber(target.to)) response.dial(target.to.replace(/^tel:/i, ''));
  else if (isSipUri(target.to)) response.dial().sip(target.to);
  else throw new TransferTargetError(target.to);
  return response.toString();
}
