import type { IncomingMessage, ServerResponse } from 'node:http';
import twilio from 'twilio';
import { callTraceparent, isCallMode, type CallMode } from '../../call-request.js';
import type { AnsweredBy } from '../call-control.js';
import type { StreamTokens } from '../stream-tokens.js';
import { connectTwiml, rejectTwiml } from './twiml.js';

export interface TwilioWebhookOptions {
  /** The public base URL Twilio reaches this server at (https://…); signatures are checked against it. */
  publicUrl: string;
  /** When set, every webhook must carry a valid X-Twilio-Signature (403 otherwise). */
  authToken?: string;
  /** Issues the token each answer's stream carries. */
  tokens: StreamTokens;
  /** Path of Twilio's media-stream endpoint on this server. */
  telephonyPath: string;
  voicePath: string;
  statusPath: string;
  machineDetectionPath: string;
  /** Largest form body accepted. */
  maxBodyBytes: number;
  /** Default agent and mode of answered calls (a `?agent=&mode=` query on the webhook URL overrides them). */
  agent?: string;
  mode?: CallMode;
  log(line: string): void;
  /** A machine-detection result for a call (asynchronous AMD of an outbound call). */
  onAnsweredBy?(callSid: string, answeredBy: AnsweredBy): void;
  /** True while the agent takes no more calls (full or draining): the call is rejected busy, so the carrier can fail over. */
  busy?(): boolean;
  /** A call status callback (`CallStatus`: initiated, ringing, in-progress, completed, busy, no-answer, failed, canceled). */
  onCallStatus?(callSid: string, status: string): void;
}

export const twilioWebhookDefaults = {
  telephonyPath: '/telephony',
  voicePath: '/twilio/voice',
  statusPath: '/twilio/status',
  machineDetectionPath: '/twilio/amd',
  maxBodyBytes: 64 * 1024,
};

const answeredByValues = new Set<string>(['human', 'machine_start', 'machine_end_beep', 'machine_end_silence', 'machine_end_other', 'fax', 'unknown']);

/** `path` under the public base URL: `https://host/base` + `/twilio/status` → `https://host/base/twilio/status`. */
export function publicUrlOf(publicUrl: string, path: string): string {
  return new URL(path.replace(/^\//, ''), publicUrl.endsWith('/') ? publicUrl : `${publicUrl}/`).href;
}

/** `https://host/base` → `wss://host/base/telephony`. */
export function publicStreamUrl(publicUrl: string, path: string): string {
  const url = new URL(publicUrlOf(publicUrl, path));
  url.protocol = url.protocol === 'http:' ? 'ws:' : 'wss:';
  return url.href;
}

/**
 * Twilio's webhooks: `POST /twilio/voice` answers a call with TwiML that connects it to the agent's media stream
 * (with `traceparent`, `agent`, `mode` and a short-lived stream `token` as `<Parameter>`s); `POST /twilio/status`
 * logs call and stream status callbacks; `POST /twilio/amd` passes machine-detection results on.
 */
export class TwilioWebhooks {
  private readonly options: TwilioWebhookOptions;

  constructor(options: Partial<TwilioWebhookOptions> & Pick<TwilioWebhookOptions, 'publicUrl' | 'tokens' | 'log'>) {
    this.options = { ...twilioWebhookDefaults, ...options };
    new URL(this.options.publicUrl); // a bad public URL fails at start-up, not on the first call
  }

  /** Callback URL of this server for `path`. */
  url(path: string): string {
    return publicUrlOf(this.options.publicUrl, path);
  }

  /** Takes the request when it is for one of the webhooks; returns false otherwise. */
  handle = (request: IncomingMessage, response: ServerResponse): boolean => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const o = this.options;
    const route = url.pathname === o.voicePath ? 'voice' : url.pathname === o.statusPath ? 'status' : url.pathname === o.machineDetectionPath ? 'amd' : undefined;
    if (!route) return false;
    if (request.method !== 'POST') {
      reply(response, 405, 'text/plain', `Twilio webhooks are POSTed to ${url.pathname}\n`);
      return true;
    }
    readForm(request, o.maxBodyBytes)
      .then((params) => {
        if (!this.signed(request, params)) {
          o.log(`twilio ${route} webhook refused: missing or invalid X-Twilio-Signature`);
          return reply(response, 403, 'text/plain', 'invalid X-Twilio-Signature\n');
        }
        if (route === 'voice') return reply(response, 200, 'text/xml', this.answer(request, url.searchParams, params));
        if (route === 'status') this.status(params);
        else this.answeredBy(params);
        reply(response, 204, 'text/plain', '');
      })
      .catch((error: unknown) => reply(response, error instanceof BodyTooLargeError ? 413 : 400, 'text/plain', `${String(error)}\n`));
    return true;
  };

  /** Connects the call to the agent's media stream, carrying a fresh or the request's trace and a token bound to the call. */
  private answer(request: IncomingMessage, query: URLSearchParams, params: Record<string, string>): string {
    const o = this.options;
    if (o.busy?.()) {
      o.log(`twilio call ${params['CallSid'] ?? '?'} from ${params['From'] ?? '?'}: rejected busy (the agent is full or draining)`);
      return rejectTwiml('busy');
    }
    const header = request.headers['traceparent'];
    const parameters: Record<string, string> = { traceparent: callTraceparent(Array.isArray(header) ? header[0] : header) };
    const agent = query.get('agent') ?? o.agent;
    const mode = query.get('mode') ?? o.mode;
    if (agent) parameters['agent'] = agent;
    if (isCallMode(mode)) parameters['mode'] = mode;
    // Who called whom, for the call's record.
    if (params['From']) parameters['from'] = params['From'];
    if (params['To']) parameters['to'] = params['To'];
    parameters['token'] = o.tokens.issue(params['CallSid'] ?? '');
    o.log(`twilio call ${params['CallSid'] ?? '?'} from ${params['From'] ?? '?'} to ${params['To'] ?? '?'}: answering, trace ${parameters['traceparent']}`);
    return connectTwiml({ streamUrl: publicStreamUrl(o.publicUrl, o.telephonyPath), parameters, statusCallbackUrl: this.url(o.statusPath) });
  }

  private status(params: Record<string, string>): void {
    if (!params['StreamEvent'] && params['CallSid'] && params['CallStatus']) this.options.onCallStatus?.(params['CallSid'], params['CallStatus']);
    const what = params['StreamEvent'] ? `stream ${params['StreamSid'] ?? '?'} ${params['StreamEvent']}${params['StreamError'] ? `: ${params['StreamError']}` : ''}` : `status ${params['CallStatus'] ?? '?'}`;
    this.options.log(`twilio call ${params['CallSid'] ?? '?'}: ${what}`);
  }

  private answeredBy(params: Record<string, string>): void {
    const callSid = params['CallSid'];
    const answeredBy = params['AnsweredBy'];
    this.options.log(`twilio call ${callSid ?? '?'}: answered by ${answeredBy ?? '?'}`);
    if (callSid && answeredBy && answeredByValues.has(answeredBy)) this.options.onAnsweredBy?.(callSid, answeredBy as AnsweredBy);
  }

  private signed(request: IncomingMessage, params: Record<string, string>): boolean {
    const token = this.options.authToken;
    if (!token) return true;
    const signature = request.headers['x-twilio-signature'];
    if (typeof signature !== 'string') return false;
    return twilio.validateRequest(token, signature, this.url(request.url ?? '/'), params);
  }
}

/** A webhook body over the limit (413). */
export class BodyTooLargeError extends Error {
  override readonly name = 'BodyTooLargeError';
}

async function readForm(request: IncomingMessage, maxBytes: number): Promise<Record<string, string>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw new BodyTooLargeError(`webhook body over ${maxBytes} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString()));
}

function reply(response: ServerResponse, status: number, contentType: string, body: string): void {
  response.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store' });
  response.end(body);
}
