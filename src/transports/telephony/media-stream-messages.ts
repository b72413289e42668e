import { z } from 'zod';

/**
 * The Twilio-style media stream: JSON text frames over a WebSocket. Audio is base64 mu-law, 8 kHz, mono,
 * both ways; the provider buffers what we send, plays it, echoes our `mark`s once played, and drops its
 * buffer on `clear`.
 */
export const mediaStream = {
  sampleRate: 8_000,
  /** Bytes (= samples) of mu-law per outbound media message: 20 ms. */
  outboundChunkBytes: 160,
  /** Largest text frame accepted. */
  maxMessageBytes: 64 * 1024,
} as const;

const connected = z.object({ event: z.literal('connected') }).passthrough();
const start = z
  .object({
    event: z.literal('start'),
    streamSid: z.string().min(1).optional(),
    start: z
      .object({
        streamSid: z.string().min(1).optional(),
        callSid: z.string().optional(),
        customParameters: z.record(z.string(), z.string()).optional(),
        mediaFormat: z
          .object({ encoding: z.string(), sampleRate: z.number(), channels: z.number().optional() })
          .passthrough()
          .optional(),
      })
      .passthrough(),
  })
  .passthrough();
const media = z
  .object({
    event: z.literal('media'),
    media: z.object({ payload: z.string(), track: z.string().optional(), timestamp: z.union([z.string(), z.number()]).optional() }).passthrough(),
  })
  .passthrough();
const mark = z.object({ event: z.literal('mark'), mark: z.object({ name: z.string() }) }).passthrough();
const dtmf = z.object({ event: z.literal('dtmf'), dtmf: z.object({ digit: z.string().min(1).max(1) }).passthrough() }).passthrough();
const stop = z.object({ event: z.literal('stop') }).passthrough();

export const inboundMessageSchema = z.discriminatedUnion('event', [connected, start, media, mark, dtmf, stop]);
export type InboundMessage = z.infer<typeof inboundMessageSchema>;
export type StartMessage = z.infer<typeof start>;

export type OutboundMessage =
  | { event: 'media'; streamSid: string; media: { payload: string } }
  | { event: 'mark'; streamSid: string; mark: { name: string } }
  | { event: 'clear'; streamSid: string };

/** Parses one text frame; returns null (never throws) for anything that is not a known event. */
export function parseInboundMessage(text: string): InboundMessage | null {
  if (text.length > mediaStream.maxMessageBytes) return null;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return null;
  }
  // Fifty media frames a second per call, and the echo of a mark after each piece of agent audio: those are
  // checked by hand, as the schema would, without its copies.
  if (isMediaMessage(json) || isMarkMessage(json)) return json;
  const result = inboundMessageSchema.safeParse(json);
  return result.success ? result.data : null;
}

function isMediaMessage(json: unknown): json is z.infer<typeof media> {
  if (typeof json !== 'object' || json === null || (json as { event?: unknown }).event !== 'media') return false;
  const body = (json as { media?: unknown }).media;
  if (typeof body !== 'object' || body === null) return false;
  const { payload, track, timestamp } = body as Record<string, unknown>;
  return typeof payload === 'string' && (track === undefined || typeof track === 'string') && (timestamp === undefined || typeof timestamp === 'string' || typeof timestamp === 'number');
}

function isMarkMessage(json: unknown): json is z.infer<typeof mark> {
  if (typeof json !== 'object' || json === null || (json as { event?: unknown }).event !== 'mark') return false;
  const body = (json as { mark?: unknown }).mark;
  return typeof body === 'object' && body !== null && typeof (body as { name?: unknown }).name === 'string';
}
