import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CallSession as AgentCallSession, Transport } from '../agent/index.js';
import {
  runPhoneCall,
  StreamTokens,
  TelephonyTransport,
  TwilioCallControl,
  TwilioWebhooks,
  placeCall,
  publicStreamUrl,
  isPhoneNumber,
  isSipUri,
  type CarrierCallControl,
} from '../transports/telephony/index.js';
import type { CallMode } from '../transports/call-request.js';
import { compact, TransferTargetError, type TransferPolicy } from '../agent/transfer-target.js';

/** What `shoal agent` and `shoal call` need to know about the phone side; env fills what the flags leave out. */
export interface PhoneSettings {
  /** The public https URL carriers reach this server at (`--public-url`, `SHOAL_PUBLIC_URL`). */
  publicUrl?: string;
  /** Where transfers may go (`--transfer NAME=NUMBER`, `--transfer-to`, `--allow-any-transfer-target`). */
  transfers: TransferPolicy;
  agent: string;
  mode: CallMode;
  /** Key the carriers' streams carry as `?key=` (default $SHOAL_STREAM_KEY). */
  streamKey?: string;
  /** Signs stream tokens, shared by the instances behind one load balancer (default $SHOAL_STREAM_SECRET; else random per process). */
  streamSecret?: string;
  /** Twilio's auth token (default $TWILIO_AUTH_TOKEN). */
  twilioAuthToken?: string;
  /** True while no more calls are taken: Twilio's webhook then rejects calls busy. */
  busy?(): boolean;
}

/** Shortest stream secret accepted: an HMAC key should hold at least 256 bits. */
export const minStreamSecretLength = 32;

/** The Twilio account, from `TWILIO_ACCOUNT_SID` / `TWILIO_AUTH_TOKEN` (`TWILIO_API_BASE_URL` for a proxy or test double). */
function twilioAccount(env: NodeJS.ProcessEnv, authToken: string | undefined) {
  const accountSid = env['TWILIO_ACCOUNT_SID'];
  return accountSid && authToken ? { accountSid, authToken, apiBaseUrl: env['TWILIO_API_BASE_URL'] } : undefined;
}

/** `--transfer NAME=NUMBER` pairs as a map; a bad pair fails at start-up. */
export function parseTransferTargets(pairs: readonly string[] = []): Record<string, string> {
  // No prototype: a target named "__proto__" is a name like any other.
  const targets: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    const name = pair.slice(0, at).trim();
    const to = compact(pair.slice(at + 1).trim());
    if (at <= 0 || !name) throw new PhoneSetupError(`--transfer takes NAME=NUMBER (e.g. "front desk=+14155550100"), not "${pair}"`);
    if (!isPhoneNumber(to) && !isSipUri(to)) throw new TransferTargetError(to);
    targets[name] = to;
  }
  return targets;
}

/** The transfer policy of `--transfer`, `--transfer-to` and `--allow-any-transfer-target`. */
export function transferPolicy(options: { transfer?: readonly string[]; transferTo?: string; allowAnyTransferTarget?: boolean; transferUnknownToDefault?: boolean }): TransferPolicy {
  const defaultTarget = options.transferTo ? compact(options.transferTo.trim()) : undefined;
  if (defaultTarget && !isPhoneNumber(defaultTarget) && !isSipUri(defaultTarget)) throw new TransferTargetError(defaultTarget);
  return {
    targets: parseTransferTargets(options.transfer),
    allowAnyTarget: options.allowAnyTransferTarget ?? false,
    unknownToDefault: options.transferUnknownToDefault ?? false,
    ...(defaultTarget ? { defaultTarget } : {}),
  };
}

/** How long a machine-detection result waits for its call's stream. */
const answeredByKeptMs = 120_000;

const finalStatuses = new Set(['completed', 'busy', 'no-answer', 'failed', 'canceled']);

/** `shoal call` without the carrier account or public URL it needs. */
export class PhoneSetupError extends Error {
  override readonly name = 'PhoneSetupError';
}

/**
 * The phone side of a running agent: Twilio's answer webhooks and stream tokens when a public URL is set, call
 * control when a Twilio account is, and each phone call's actions (transfer, DTMF out, hang-up through the API).
 */
export class PhoneLines {
  readonly publicUrl: string | undefined;
  readonly tokens: StreamTokens | undefined;
  readonly control: CarrierCallControl | undefined;
  readonly accessKey: string | undefined;
  private readonly signed: boolean;
  /** Stream tokens are signed with a secret every instance shares (else one made at start). */
  readonly sharedSecret: boolean;
  readonly routes: Array<(request: IncomingMessage, response: ServerResponse) => boolean> = [];
  private readonly webhooks: TwilioWebhooks | undefined;
  private readonly byCallSid = new Map<string, TelephonyTransport>();
  private readonly answeredBy = new Map<string, string>();
  private readonly finishing = new Map<string, (status: string) => void>();

  constructor(
    private readonly settings: PhoneSettings,
    private readonly log: (line: string) => void,
    env: NodeJS.ProcessEnv = process.env,
  ) {
    this.publicUrl = settings.publicUrl ?? env['SHOAL_PUBLIC_URL'];
    this.accessKey = settings.streamKey ?? (env['SHOAL_STREAM_KEY'] || undefined);
    const authToken = settings.twilioAuthToken ?? (env['TWILIO_AUTH_TOKEN'] || undefined);
    this.signed = Boolean(authToken);
    const account = twilioAccount(env, authToken);
    this.control = account ? new TwilioCallControl(account) : undefined;
    const streamSecret = settings.streamSecret ?? (env['SHOAL_STREAM_SECRET'] || undefined);
    if (streamSecret !== undefined && streamSecret.length < minStreamSecretLength) {
      throw new PhoneSetupError(`the stream secret is ${streamSecret.length} characters; use at least ${minStreamSecretLength} (e.g. openssl rand -hex 32 > stream-secret)`);
    }
    this.sharedSecret = streamSecret !== undefined;
    if (this.publicUrl) {
      this.tokens = new StreamTokens(streamSecret ? { secret: streamSecret } : {});
      this.webhooks = new TwilioWebhooks({
        publicUrl: this.publicUrl,
        authToken,
        ...(settings.busy ? { busy: settings.busy } : {}),
        tokens: this.tokens,
        agent: settings.agent,
        mode: settings.mode,
        log,
        onAnsweredBy: (callSid, answeredBy) => this.deliverAnsweredBy(callSid, answeredBy),
        onCallStatus: (callSid, status) => {
          if (finalStatuses.has(status)) this.finishing.get(callSid)?.(status);
        },
      });
      this.routes.push(this.webhooks.handle);
    }
  }

  /** Lines telling the operator where to point the carriers. */
  describe(localUrl: string): string[] {
    const streams = this.publicUrl ?? localUrl;
    const lines = [`telephony media streams: ${publicStreamUrl(streams, '/telephony')} (Twilio), …/telephony/{telnyx,plivo,vonage,exotel}`];
    if (this.webhooks) {
      lines.push(`Twilio voice webhook: POST ${this.webhooks.url('/twilio/voice')} (signatures ${this.signed ? 'checked' : 'NOT checked: set TWILIO_AUTH_TOKEN'})`);
      lines.push(this.sharedSecret ? 'stream tokens: signed with SHOAL_STREAM_SECRET (any instance sharing it admits the stream)' : 'stream tokens: signed with a secret of this process (behind a load balancer, set SHOAL_STREAM_SECRET on every instance)');
    }
    if (!this.control) lines.push('no TWILIO_ACCOUNT_SID/TWILIO_AUTH_TOKEN: hang-ups only close the stream, transfers cannot happen');
    return lines;
  }

  /** Wires one call's phone actions when its transport is a phone stream. */
  attach(transport: Transport, session: AgentCallSession): void {
    if (!(transport instanceof TelephonyTransport)) return;
    runPhoneCall(transport, session.events$, {
      control: transport.carrier.name === this.control?.carrier ? this.control : undefined,
      transfers: this.settings.transfers,
      log: this.log,
    });
    const callSid = transport.callSid;
    if (!callSid) return;
    this.byCallSid.set(callSid, transport);
    session.events$.subscribe({ complete: () => this.byCallSid.delete(callSid) });
    const known = this.answeredBy.get(callSid);
    this.answeredBy.delete(callSid);
    if (known) setImmediate(() => transport.receiveAnsweredBy(known)); // once the session has started listening
  }

  /** Places an outbound call that streams to this agent; its machine-detection result reaches the dialogue. */
  async dial(to: string, from: string, options: { agent?: string; mode?: CallMode; machineDetection: boolean }): Promise<string> {
    if (!this.control) throw new PhoneSetupError('outbound calls need a Twilio account: set TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN');
    if (!this.publicUrl || !this.tokens) throw new PhoneSetupError('outbound calls need the public URL Twilio reaches this server at: --public-url https://… or SHOAL_PUBLIC_URL');
    const { callId, traceparent } = await placeCall(this.control, {
      to,
      from,
      publicUrl: this.publicUrl,
      tokens: this.tokens,
      agent: options.agent ?? this.settings.agent,
      mode: options.mode ?? this.settings.mode,
      machineDetection: options.machineDetection,
    });
    this.log(`calling ${to} from ${from}: call ${callId}, trace ${traceparent}`);
    return callId;
  }

  /** Resolves with the final status of a call (completed, busy, no-answer, failed, canceled) from Twilio's status callbacks. */
  finished(callSid: string): Promise<string> {
    return new Promise((resolve) => this.finishing.set(callSid, resolve));
  }

  private deliverAnsweredBy(callSid: string, answeredBy: string): void {
    const transport = this.byCallSid.get(callSid);
    if (transport) transport.receiveAnsweredBy(answeredBy);
    else {
      // The result came before the stream did (or the stream is on another instance): kept for a while only.
      this.answeredBy.set(callSid, answeredBy);
      setTimeout(() => this.answeredBy.delete(callSid), answeredByKeptMs).unref();
    }
  }
}
