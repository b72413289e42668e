import type { Observable } from 'rxjs';
import type { AgentEvent } from '../../agent/events.js';
import { resolveTransfer, type TransferPolicy } from '../../agent/transfer-target.js';
import type { CarrierCallControl, TransferTarget } from './call-control.js';
import { dtmfTones } from './dtmf-tones.js';
import type { TelephonyTransport } from './telephony-transport.js';

export interface PhoneCallOptions {
  /** The carrier's REST API; without it a hang-up only closes the stream and transfers cannot happen. */
  control?: CarrierCallControl;
  /** Where transfers may go (configured targets only, unless `allowAnyTarget`). */
  transfers: TransferPolicy;
  log(line: string): void;
}

export const phoneCallDefaults = { transfers: { targets: {} } as TransferPolicy };

/** The dialogue actions a phone call carries out (tool-call names a dialogue emits). */
export const phoneActions = {
  /** `{to?: string, announce?: string}`: when the agent next ends the call, the caller is transferred instead of hung up on. */
  transfer: 'transfer_call',
  /** `{digits: string}`: keys sent to the other side (e.g. an IVR) as in-band DTMF tones. */
  sendDigits: 'send_dtmf',
} as const;

/**
 * Carries out an agent's call on the phone: `transfer_call` and `send_dtmf` actions of the dialogue, and the
 * agent's hang-up through the carrier's REST API (after the last words were played) — a transfer when one is pending.
 */
export function runPhoneCall(transport: TelephonyTransport, events$: Observable<AgentEvent>, options: Partial<PhoneCallOptions> & Pick<PhoneCallOptions, 'log'>): void {
  const o = { ...phoneCallDefaults, ...options };
  const callId = transport.callSid;
  let transfer: TransferTarget | undefined;

  events$.subscribe((event) => {
    if (event.type !== 'tool-call' || !event.kept) return; // a discarded (speculative) reply's actions are not carried out
    if (event.error !== undefined) return; // the tool refused it (e.g. a transfer target not allowed), and the dialogue was told
    try {
      if (event.name === phoneActions.transfer) {
        transfer = transferTarget(event.arguments, o.transfers);
        o.log(`call ${callId ?? transport.streamSid}: transfer to ${transfer.to} when the agent ends the call`);
      } else if (event.name === phoneActions.sendDigits) {
        const digits = String(event.arguments['digits'] ?? '');
        transport.play({ samples: dtmfTones(digits, transport.format.sampleRate), sampleRate: transport.format.sampleRate, timestampMs: 0 });
        o.log(`call ${callId ?? transport.streamSid}: sent DTMF ${digits}`);
      }
    } catch (error) {
      o.log(`call ${callId ?? transport.streamSid}: ${event.name} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  });

  transport.onHangup(async (reason) => {
    const control = o.control;
    if (!control || !callId) {
      if (transfer) o.log(`call ${callId ?? transport.streamSid}: cannot transfer to ${transfer.to}: no call control for ${transport.carrier.name} (set its account), the stream is closed instead`);
      return;
    }
    try {
      if (transfer) {
        await control.transfer(callId, transfer);
        o.log(`call ${callId}: transferred to ${transfer.to}`);
        return;
      }
    } catch (error) {
      o.log(`call ${callId}: transfer failed, hanging up: ${error instanceof Error ? error.message : String(error)}`);
    }
    try {
      await control.hangup(callId);
      o.log(`call ${callId}: hung up (${reason})`);
    } catch (error) {
      o.log(`call ${callId}: hang-up failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  });
}

function transferTarget(args: Record<string, unknown>, policy: TransferPolicy): TransferTarget {
  const { to } = resolveTransfer(args, policy);
  const announce = typeof args['announce'] === 'string' ? args['announce'] : undefined;
  return { to, ...(announce ? { announce } : {}) };
}
