import { z } from 'zod';
import type { CallMode } from '../call-request.js';

export type { CallMode };

/**
 * The browser protocol (docs/browser-protocol.md): binary frames carry PCM16 LE mono audio at
 * `sampleRate` both ways; text frames carry the JSON control messages below.
 */
export const browserProtocol = {
  version: 1,
  /** Sample rate of the audio in binary frames, both directions. */
  sampleRate: 16_000,
  /** Largest binary frame accepted from the page: 1 s of audio. Bigger frames close the socket (1009). */
  maxFrameBytes: 32_000,
  /** Largest text frame accepted from the page. */
  maxTextBytes: 8_192,
} as const;

export const callModes = ['low-latency', 'balanced'] as const satisfies readonly CallMode[];

const hello = z.object({
  type: z.literal('hello'),
  traceparent: z.string().max(128).optional(),
  tracestate: z.string().max(512).optional(),
  mode: z.enum(callModes).optional(),
  agent: z.string().min(1).max(64).optional(),
  /** Declares the rate of the page's audio; only `browserProtocol.sampleRate` is accepted. */
  sampleRate: z.number().int().optional(),
});

const hangup = z.object({ type: z.literal('hangup'), reason: z.string().max(200).optional() });
const dtmf = z.object({ type: z.literal('dtmf'), digit: z.string().regex(/^[0-9*#A-D]$/) });
export const clientMessageSchema = z.discriminatedUnion('type', [hello, hangup, dtmf]);
export type ClientMessage = z.infer<typeof clientMessageSchema>;
export type HelloMessage = z.infer<typeof hello>;

export interface TurnLatency {
  turn: number;
  /** Silence waited after the caller's last voice until the endpoint fired. */
  endpointingMs?: number;
  endOfSpeechToTranscriptMs?: number;
  dialogueFirstTokenMs?: number;
  ttsFirstAudioMs?: number;
  voiceToVoiceMs?: number;
}

/** Messages the server sends to the page. */
export type ServerMessage =
  | { type: 'ready'; callId: string; sampleRate: number; traceparent: string; mode: CallMode; agent: string }
  | { type: 'clear' }
  | { type: 'transcript'; turn: number; text: string; final: boolean }
  | { type: 'agent_text'; turn: number; text: string; final: boolean; interrupted?: boolean }
  | ({ type: 'metrics' } & TurnLatency)
  | { type: 'hangup'; reason?: string }
  | { type: 'error'; code: BrowserErrorCode; message: string; retryAfterMs?: number };

export type BrowserErrorCode =
  | 'bad_json'
  | 'bad_message'
  | 'bad_frame'
  | 'not_ready'
  | 'unsupported_rate'
  | 'unknown_agent'
  | 'agent_failed'
  | 'agent_busy'
  | 'hello_timeout'
  | 'agent_error';

export type ParsedClientMessage =
  | { ok: true; message: ClientMessage }
  | { ok: false; code: BrowserErrorCode; message: string };

/** Parses one text frame from the page; never throws. */
export function parseClientMessage(text: string): ParsedClientMessage {
  if (text.length > browserProtocol.maxTextBytes) {
    return { ok: false, code: 'bad_message', message: `text frames are limited to ${browserProtocol.maxTextBytes} bytes` };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, code: 'bad_json', message: 'text frames must be JSON objects such as {"type":"hello"}' };
  }
  const result = clientMessageSchema.safeParse(json);
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue && issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
    return {
      ok: false,
      code: 'bad_message',
      message: `unrecognised control message${where}: ${issue?.message ?? 'invalid'}; see docs/browser-protocol.md`,
    };
  }
  return { ok: true, message: result.data };
}
