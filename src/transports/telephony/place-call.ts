import { callTraceparent, type CallMode } from '../call-request.js';
import type { CarrierCallControl } from './call-control.js';
import type { StreamTokens } from './stream-tokens.js';
import { publicStreamUrl, publicUrlOf } from './twilio/webhooks.js';

export interface PlaceCallOptions {
  to: string;
  from: string;
  /** The public URL of the server running the agent (its media stream at `telephonyPath`, its webhooks under `/twilio/`). */
  publicUrl: string;
  /** The server's stream tokens: the call's stream must carry one to be admitted. */
  tokens: StreamTokens;
  agent?: string;
  mode?: CallMode;
  /** Ask the carrier who answered (person or machine); the dialogue's `answeredBy` hears the result. */
  machineDetection: boolean;
  /** How long the stream token stays valid: ringing plus answering. */
  tokenTtlMs: number;
  telephonyPath: string;
  statusPath: string;
  machineDetectionPath: string;
}

export const placeCallDefaults = {
  machineDetection: true,
  tokenTtlMs: 120_000,
  telephonyPath: '/telephony',
  statusPath: '/twilio/status',
  machineDetectionPath: '/twilio/amd',
};

/** Calls `to` and connects the agent once it is answered; resolves with the carrier's call id and the call's trace. */
export async function placeCall(control: CarrierCallControl, options: Partial<PlaceCallOptions> & Pick<PlaceCallOptions, 'to' | 'from' | 'publicUrl' | 'tokens'>): Promise<{ callId: string; traceparent: string }> {
  const o = { ...placeCallDefaults, ...options };
  const traceparent = callTraceparent();
  const parameters: Record<string, string> = { traceparent, token: o.tokens.issue('', o.tokenTtlMs) };
  if (o.agent) parameters['agent'] = o.agent;
  if (o.mode) parameters['mode'] = o.mode;
  const { callId } = await control.dial({
    to: o.to,
    from: o.from,
    streamUrl: publicStreamUrl(o.publicUrl, o.telephonyPath),
    parameters,
    machineDetection: o.machineDetection,
    statusCallbackUrl: publicUrlOf(o.publicUrl, o.statusPath),
    machineDetectionCallbackUrl: publicUrlOf(o.publicUrl, o.machineDetectionPath),
  });
  return { callId, traceparent };
}
