/** Worker thread for the media pool: encoders keep their stream state here; decoding and analysis run here too. */
import { readFile } from 'node:fs/promises';
import { parentPort } from 'node:worker_threads';
import {
  AudioTooLongError, concatSamples, createEncoder, decodeAudio, encodeWav, enhanceSample, measureSample, resample, type StreamingEncoder,
} from '../../audio/index.js';
import { analyzeVoice, nearestVoice } from '../voice/index.js';
import type { MediaReply, MediaRequest } from './media-protocol.js';

type Reply = MediaReply extends infer R ? (R extends { seq: number } ? Omit<R, 'seq'> : never) : never;

/** Each stream's encoder, and the tail of its operations (a stream's messages run strictly in order). */
const streams = new Map<number, Promise<StreamingEncoder>>();

/** A buffer that can be moved to the other thread: the bytes' own, whole buffer. */
function owned<T extends Uint8Array | Int16Array>(view: T): T {
  return view.byteOffset === 0 && view.byteLength === view.buffer.byteLength ? view : (view.slice() as T);
}

function encoderOf(stream: number): Promise<StreamingEncoder> {
  const encoder = streams.get(stream);
  if (!encoder) throw new Error(`no open encoder stream ${stream}`);
  return encoder;
}

/** Decodes one file (its bytes, or its path); a failure names the file's position among several. */
async function decodeFile(file: Uint8Array | string, maxDurationMs: number, index?: number) {
  try {
    return await decodeAudio(typeof file === 'string' ? await readFile(file) : file, { maxDurationMs });
  } catch (error) {
    throw Object.assign(error as Error, { index });
  }
}

async function handle(request: MediaRequest): Promise<Reply> {
  switch (request.op) {
    case 'open': {
      const opened = createEncoder(request.options);
      streams.set(request.stream, opened);
      const encoder = await opened.catch((error: unknown) => {
        streams.delete(request.stream);
        throw error;
      });
      return { ok: true, op: 'open', sampleRate: encoder.sampleRate, inputSampleRate: encoder.inputSampleRate, contentType: encoder.contentType };
    }
    case 'write':
      return { ok: true, op: 'bytes', bytes: owned((await encoderOf(request.stream)).write(request.pcm)) };
    case 'end': {
      const encoder = await encoderOf(request.stream);
      streams.delete(request.stream);
      return { ok: true, op: 'bytes', bytes: owned(encoder.end()) };
    }
    case 'close': {
      const encoder = streams.get(request.stream);
      streams.delete(request.stream);
      (await encoder)?.close();
      return { ok: true, op: 'bytes', bytes: new Uint8Array(0) };
    }
    case 'decode': {
      const decoded = await decodeFile(request.file, request.maxDurationMs);
      const durationMs = (decoded.samples.length * 1000) / decoded.sampleRate;
      const rate = request.sampleRate ?? decoded.sampleRate;
      const samples = rate === decoded.sampleRate ? decoded.samples : await resample(decoded.samples, decoded.sampleRate, rate);
      return { ok: true, op: 'decode', samples: owned(samples), sampleRate: rate, sourceRate: decoded.sampleRate, durationMs };
    }
    case 'prepare-sample': {
      const decoded = await decodeFile(request.file, request.maxDurationMs);
      const measures = measureSample(decoded.samples, decoded.sampleRate);
      const pcm16k = decoded.sampleRate === 16_000 ? decoded.samples : await resample(decoded.samples, decoded.sampleRate, 16_000);
      const stored = request.enhance ? enhanceSample(decoded.samples, decoded.sampleRate) : decoded.samples;
      return { ok: true, op: 'sample', measures, wav: owned(encodeWav(stored, decoded.sampleRate)), pcm16k: owned(pcm16k) };
    }
    case 'voice': {
      const parts: Int16Array[] = [];
      for (const [index, bytes] of request.files.entries()) {
        const decoded = await decodeFile(bytes, request.maxDurationMs, index);
        parts.push(await resample(decoded.samples, decoded.sampleRate, 16_000));
      }
      return { ok: true, op: 'voice', voice: nearestVoice(analyzeVoice(concatSamples(parts), 16_000)) };
    }
    case 'voice-pcm':
      return { ok: true, op: 'voice', voice: nearestVoice(analyzeVoice(request.pcm16k, 16_000)) };
  }
}

/** Buffers of a reply that move instead of being copied. */
function transfers(reply: Reply): ArrayBuffer[] {
  if (!reply.ok) return [];
  if (reply.op === 'bytes') return [reply.bytes.buffer as ArrayBuffer];
  if (reply.op === 'decode') return [reply.samples.buffer as ArrayBuffer];
  if (reply.op === 'sample') return [reply.wav.buffer as ArrayBuffer, reply.pcm16k.buffer as ArrayBuffer];
  return [];
}

parentPort!.on('message', (request: MediaRequest & { seq: number }) => {
  const stream = 'stream' in request ? request.stream : undefined;
  const work = async (): Promise<Reply> => {
    try {
      return await handle(request);
    } catch (error) {
      const { name, message, status, index } = error as Error & { status?: unknown; index?: unknown };
      return {
        ok: false,
        name,
        message,
        ...(error instanceof AudioTooLongError ? { tooLong: { durationMs: error.durationMs, limitMs: error.limitMs, exact: error.exact } } : {}),
        ...(typeof status === 'number' ? { status } : {}),
        ...(typeof index === 'number' ? { index } : {}),
      };
    }
  };
  // A stream's operations run one after another even while its encoder is still being created.
  const previous = stream !== undefined && request.op !== 'open' ? (streams.get(stream)?.catch(() => undefined) ?? Promise.resolve()) : Promise.resolve();
  void previous.then(work).then((reply) => parentPort!.postMessage({ ...reply, seq: request.seq }, transfers(reply)));
});
