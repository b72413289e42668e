import { RoomServiceClient, SipClient } from 'livekit-server-sdk';
import type { RoomParticipant } from './room-link.js';
import { resolveTransfer, TransferRefusedError, TransferTargetError } from '../../agent/transfer-target.js';

export { TransferRefusedError, TransferTargetError };

/** What ending a call does to the room: delete it (everyone leaves), remove only the caller, or just leave. */
export type EndCallMode = 'delete-room' | 'remove-caller' | 'leave';

/** The room operations call control uses (`RoomServiceClient` implements them). */
export interface RoomOperations {
  deleteRoom(room: string): Promise<void>;
  removeParticipant(room: string, identity: string): Promise<void>;
}

/** The SIP operation call control uses (`SipClient` implements it). */
export interface SipOperations {
  transferSipParticipant(room: string, identity: string, transferTo: string, options?: { playDialtone?: boolean }): Promise<void>;
}

export interface CallControlOptions {
  /** When the agent ends the call (the dialogue's end-call); default `delete-room`. */
  endCall?: EndCallMode;
  /** Where `transfer_call` sends a SIP caller, by the tool's `to` argument, e.g. `{ "human agent": "tel:+15550100" }`. */
  transferTargets?: Record<string, string>;
  /** Where to transfer when `to` names no target. */
  defaultTransferTo?: string;
  /** Let `to` be any `sip:`/`tel:` URI the dialogue gives; off: only the configured targets (`--allow-any-transfer-target`). */
  allowAnyTransferTarget?: boolean;
  /** Send a transfer to an unknown name to `defaultTransferTo` instead of refusing it (`--transfer-unknown-to-default`). */
  transferUnknownToDefault?: boolean;
  rooms: RoomOperations;
  sip: SipOperations;
}

export const defaults = {
  endCall: 'delete-room' as EndCallMode,
  /** The dialogue tool name that asks for a transfer (scripted `action`, LLM tool). */
  transferTool: 'transfer_call',
};

/** Ends and transfers calls in a LiveKit room through the server API (RoomService and SIP). */
export class CallControl {
  constructor(private readonly options: CallControlOptions) {}

  /** Call control over `livekit-server-sdk`'s `RoomServiceClient` and `SipClient`. */
  static forServer(credentials: { url: string; apiKey: string; apiSecret: string }, options: Omit<CallControlOptions, 'rooms' | 'sip'> = {}): CallControl {
    const host = credentials.url.replace(/^ws/, 'http');
    return new CallControl({
      ...options,
      rooms: new RoomServiceClient(host, credentials.apiKey, credentials.apiSecret),
      sip: new SipClient(host, credentials.apiKey, credentials.apiSecret),
    });
  }

  /** The agent hung up: ends the call for everyone in the room (or as `endCall` says). */
  async endCall(room: string, caller: RoomParticipant | undefined): Promise<void> {
    const mode = this.options.endCall ?? defaults.endCall;
    if (mode === 'delete-room') await this.options.rooms.deleteRoom(room);
    else if (mode === 'remove-caller' && caller) await this.options.rooms.removeParticipant(room, caller.identity);
  }

  /** Where `transfer_call` with these arguments sends the caller; TransferRefusedError for an address not configured. */
  transferTarget(args: Record<string, unknown>): string {
    const { transferTargets = {}, defaultTransferTo, allowAnyTransferTarget = false, transferUnknownToDefault = false } = this.options;
    return resolveTransfer(args, {
      targets: transferTargets,
      allowAnyTarget: allowAnyTransferTarget,
      unknownToDefault: transferUnknownToDefault,
      ...(defaultTransferTo ? { defaultTarget: defaultTransferTo } : {}),
    }).to;
  }

  /** Hands a SIP caller to `transferTo` (SIP REFER); the caller leaves the room when the transfer completes. */
  async transfer(room: string, caller: RoomParticipant, transferTo: string): Promise<void> {
    await this.options.sip.transferSipParticipant(room, caller.identity, transferTo, { playDialtone: false });
  }
}
