import { addCharges, chargeHeader, readCharge } from './charge.js';
import { decode } from '@msgpack/msgpack';
import { decodeAudio, parseWav } from '../audio/index.js';
import { fileName, readBytes, type FileInput } from './audio-input.js';
import { splitAtSilences } from './asr-split.js';
import type { CallOptions } from './defaults.js';
import { InvalidRequestError, MalformedResponseError } from './errors.js';
import type { HttpTransport, OpenResponse, RequestBody } from './http.js';
import { msgpackBody } from './request-body.js';
import { startCallTrace } from './tracing.js';
import type { Transcription } from './types.js';
import { spanAttributes } from '../tracing/index.js';
import type { Expectation } from '../speech/index.js';

export interface TranscribeOptions extends CallOptions {
  /** ISO code such as `en`; auto-detected when omitted. */
  language?: string;
  /** Ask for timed segments (sends `ignore_timestamps: false`). Default true. */
  timestamps?: boolean;
  /** Body encoding. Default `multipart`. */
  encoding?: 'multipart' | 'msgpack';
  /** File name of the multipart part. Default `audio` plus the detected extension. */
  filename?: string;
  /**
   * Shoal extension (`hints`): what the speaker is expected to say. A Shoal service listens for it; the
   * hosted service ignores the field.
   */
  hints?: readonly Expectation[];
}

const WHAT = 'POST /v1/asr';
/** Below this many bytes per second a compressed file of legal size could still exceed the duration limit (8 kbps). */
const LOWEST_BITRATE_BYTES_PER_SECOND = 1_000;

function extensionOf(bytes: Uint8Array): string {
  const head = Buffer.from(bytes.subarray(0, 4)).toString('latin1');
  if (head === 'RIFF') return '.wav';
  if (head === 'OggS') return '.ogg';
  if (head === 'fLaC') return '.flac';
  return '.mp3';
}

function requestBody(audio: Uint8Array, name: string, options: TranscribeOptions): RequestBody {
  const ignoreTimestamps = options.timestamps === false;
  if (options.encoding === 'msgpack') {
    return msgpackBody({
      audio,
      ignore_timestamps: ignoreTimestamps,
      ...(options.language ? { language: options.language } : {}),
      ...(options.hints ? { hints: options.hints } : {}),
    });
  }
  return {
    make() {
      const form = new FormData();
      form.append('audio', new Blob([audio as Uint8Array<ArrayBuffer>]), name);
      if (options.language) form.append('language', options.language);
      form.append('ignore_timestamps', String(ignoreTimestamps));
      if (options.hints) form.append('hints', JSON.stringify(options.hints));
      return form;
    },
    replayable: true,
  };
}

async function readTranscription(response: OpenResponse): Promise<Transcription> {
  const type = response.headers.get('content-type') ?? '';
  let result: unknown;
  if (type.includes('msgpack')) {
    const bytes = await response.bytes();
    try {
      result = decode(bytes);
    } catch (error) {
      throw new MalformedResponseError(`${WHAT}: the msgpack response cannot be decoded`, response.status, bytes, { cause: error });
    }
  } else {
    result = await response.json();
  }
  const record = result as Partial<Transcription> | undefined;
  if (!record || typeof record.text !== 'string') throw new MalformedResponseError(`${WHAT}: the response has no text`, response.status, result);
  const charge = readCharge(response.headers.get(chargeHeader));
  return { ...record, text: record.text, duration: Number(record.duration ?? 0), segments: record.segments ?? [], ...(charge !== undefined ? { charge } : {}) };
}

async function transcribeOne(http: HttpTransport, audio: Uint8Array, name: string, options: TranscribeOptions, traceHeaders: Record<string, string>): Promise<Transcription> {
  const body = requestBody(audio, name, options);
  const response = await http.send({ method: 'POST', path: '/v1/asr', headers: traceHeaders, body, what: WHAT, call: options });
  return readTranscription(response);
}

/** Duration in ms when it can be known cheaply (a WAV header), else undefined. */
function wavDurationMs(bytes: Uint8Array): number | undefined {
  if (Buffer.from(bytes.subarray(0, 4)).toString('latin1') !== 'RIFF') return undefined;
  try {
    const wav = parseWav(bytes);
    return (wav.samples.length * 1000) / wav.sampleRate;
  } catch {
    return undefined;
  }
}

function mayExceedLimits(bytes: Uint8Array, maxBytes: number, maxDurationMs: number): boolean {
  if (bytes.byteLength > maxBytes) return true;
  const wavMs = wavDurationMs(bytes);
  if (wavMs !== undefined) return wavMs > maxDurationMs;
  return bytes.byteLength > (maxDurationMs / 1000) * LOWEST_BITRATE_BYTES_PER_SECOND;
}

/**
 * Transcribes a file of any length: inputs over the per-request byte or duration limit are decoded, cut at
 * silences into pieces that fit, transcribed one by one, and joined with segment times offset to the whole.
 */
export async function transcribe(http: HttpTransport, input: FileInput, options: TranscribeOptions = {}): Promise<Transcription> {
  const audio = await readBytes(input);
  if (audio.byteLength === 0) throw new InvalidRequestError('the audio to transcribe is empty');
  const name = options.filename ?? fileName(input, `audio${extensionOf(audio)}`);
  const limits = http.options.asrLimits;
  const trace = startCallTrace('asr', { [spanAttributes.asrAudioBytes]: audio.byteLength }, options.traceparent);
  try {
    if (!mayExceedLimits(audio, limits.maxBytes, limits.maxDurationMs)) {
      const result = await transcribeOne(http, audio, name, options, trace.headers);
      trace.end();
      return result;
    }
    let decoded;
    try {
      decoded = await decodeAudio(audio);
    } catch (error) {
      throw new InvalidRequestError(`the audio may exceed one request's limits and cannot be decoded for splitting: ${(error as Error).message}`);
    }
    const totalMs = (decoded.samples.length * 1000) / decoded.sampleRate;
    if (audio.byteLength <= limits.maxBytes && totalMs <= limits.maxDurationMs) {
      const result = await transcribeOne(http, audio, name, options, trace.headers);
      trace.end();
      return result;
    }
    const pieces = splitAtSilences(decoded.samples, decoded.sampleRate, limits);
    trace.span.setAttribute(spanAttributes.asrPieces, pieces.length);
    const texts: string[] = [];
    const segments: Transcription['segments'] = [];
    let language: string | undefined;
    let charge: number | undefined;
    for (const piece of pieces) {
      const part = await transcribeOne(http, piece.wav, `piece-${pieces.indexOf(piece)}.wav`, options, trace.headers);
      const offset = piece.startMs / 1000;
      if (part.text.trim()) texts.push(part.text.trim());
      for (const segment of part.segments) segments.push({ ...segment, start: segment.start + offset, end: segment.end + offset });
      language ??= part.language;
      charge = addCharges(charge, part.charge);
    }
    trace.end();
    return { text: texts.join(' '), duration: totalMs / 1000, segments, ...(language ? { language } : {}), ...(charge !== undefined ? { charge } : {}) };
  } catch (error) {
    trace.end(error);
    throw error;
  }
}
