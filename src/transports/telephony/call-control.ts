import { isPhoneNumber, isSipUri, TransferTargetError } from '../../agent/transfer-target.js';
export { isPhoneNumber, isSipUri, TransferTargetError };
import type { CarrierName } from './carriers/index.js';

/** Where a transfer goes: a phone number (E.164, e.g. +14155550100) or a SIP URI (sip:desk@pbx.example.com). */
export interface TransferTarget {
  to: string;
  /** Said by the carrier to the caller just before it dials (the agent's own words come first, in its voice). */
  announce?: string;
}

/** An outbound call that, once answered, streams to the agent. */
export interface OutboundCall {
  to: string;
  from: string;
  /** The media-stream WebSocket URL (wss://…/telephony) and what it carries (traceparent, agent, mode, token). */
  streamUrl: string;
  parameters: Record<string, string>;
  /** Ask the carrier to tell a person from an answering machine; the result reaches the dialogue. */
  machineDetection: boolean;
  /** Where the carrier reports call progress and the machine-detection result. */
  statusCallbackUrl?: string;
  machineDetectionCallbackUrl?: string;
}

/** What the carrier's machine detection concluded (Twilio's `AnsweredBy` values). */
export type AnsweredBy = 'human' | 'machine_start' | 'machine_end_beep' | 'machine_end_silence' | 'machine_end_other' | 'fax' | 'unknown';

/**
 * Call control through a carrier's REST API: what a media stream alone cannot do. One implementation per carrier;
 * `callId` is the carrier's call id (Twilio's CallSid).
 */
export interface CarrierCallControl {
  readonly carrier: CarrierName;
  hangup(callId: string): Promise<void>;
  transfer(callId: string, target: TransferTarget): Promise<void>;
  /** Places a call; resolves with its id once the carrier has accepted it (not once it is answered). */
  dial(call: OutboundCall): Promise<{ callId: string }>;
}

/** The carrier's REST API refused or failed a call-control request. */
export class CallControlError extends Error {
  override readonly name = 'CallControlError';
  constructor(
    readonly action: 'hangup' | 'transfer' | 'dial',
    readonly status: number | undefined,
    message: string,
  ) {
    super(`${action} failed${status ? ` (${status})` : ''}: ${message}`);
  }
}
