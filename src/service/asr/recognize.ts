import type { FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError } from '../accounts.js';
import type { ServiceContext } from '../context.js';
import { reserveFor } from '../http/gate.js';
import type { ServerSpan } from '../http/tracing.js';
import type { Hints } from './hints.js';
import { spanAttributes } from '../../tracing/index.js';
import { MediaPool } from '../../engines/index.js';
import { AudioTooLongError } from '../../audio/index.js';
import type { Hypothesis } from '../../engines/index.js';

/** The sample rate the recogniser takes. */
const recognizerRate = 16000;

export interface Recognition {
  hypothesis: Hypothesis;
  durationMs: number;
  /** Micro-credits debited, or null where requests are not billed. */
  chargeMicros: number | null;
}

function minutes(ms: number): string {
  return `${Math.round(ms / 60000)} minutes`;
}

/** Seconds with up to three decimals, never rounded up to the limit: 999 ms is "0.999", 1000 ms is "1". */
function seconds(ms: number): string {
  return String(Math.floor(ms) / 1000);
}

/** 400 unless the audio lasts between the service's shortest and longest accepted durations. */
function checkDuration(durationMs: number, limits: ServiceContext['limits']): void {
  if (durationMs > limits.asrMaxDurationMs) {
    throw new ServiceError(
      400,
      `audio is ${minutes(durationMs)} long; the limit is ${minutes(limits.asrMaxDurationMs)}: split the recording and offset the timestamps`,
    );
  }
  if (durationMs < limits.asrMinDurationMs) {
    throw new ServiceError(400, `audio is ${seconds(durationMs)} s long; send at least ${seconds(limits.asrMinDurationMs)} s of audio`);
  }
}

/** Aborts when the client closes the connection before the response finished. */
export function abortOnClose(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort(new Error('client closed the connection'));
  });
  return controller.signal;
}

/**
 * Decodes an audio file, reserves its price once its duration is known, recognises it and bills it; nothing
 * is billed when the client leaves first (`signal`). Every route that transcribes a file goes through here.
 */
export async function recognizeFile(
  service: ServiceContext,
  request: FastifyRequest,
  input: { audio: Uint8Array; language?: string; hints?: Hints },
  span: ServerSpan,
  signal: AbortSignal,
): Promise<Recognition> {
  const { limits } = service;
  // Decoded and resampled in a media worker; the samples come back moved, not copied.
  // Longer audio is refused from its container's header, or by the decoder stopping at the limit, before it is held.
  const decoded = await MediaPool.shared()
    .decode(input.audio, { sampleRate: recognizerRate, maxDurationMs: limits.asrMaxDurationMs, signal })
    .catch((error: unknown) => {
      if (error instanceof AudioTooLongError) throw new ServiceError(400, `${error.message} and offset the timestamps`);
      throw error;
    });
  const { durationMs } = decoded;
  checkDuration(durationMs, limits);
  const usage = { kind: 'asr', seconds: durationMs / 1000 } as const;
  const reservation = await reserveFor(service.accounts, request, usage);
  try {
    const engine = service.engines.asr();
    // Telephone audio (8 kHz or less) starts from the telephone cepstral mean, as a streamed call does.
    const telephoneBand = decoded.sourceRate <= 8000;
    const hypothesis = await engine.transcribe(decoded.samples, { language: input.language, signal, telephoneBand, ...(input.hints ? { expectations: input.hints } : {}) });
    signal.throwIfAborted();
    const chargeMicros = await reservation.settle(usage);
    span.span.setAttributes({ [spanAttributes.asrAudioMs]: Math.round(durationMs), [spanAttributes.asrWords]: hypothesis.words.length });
    return { hypothesis, durationMs, chargeMicros };
  } finally {
    await reservation.settle(null);
  }
}
