import { AudioFormatError, UnsupportedAudioSettingError, type EncoderOptions } from '../../audio/index.js';
import { startModuleWorker } from '../module-worker.js';
import { ReferenceTooShortError } from '../voice/index.js';
import type { VoiceSettings } from '../types.js';
import { EnginePool, type PoolStats, type RunOptions, type EnginePoolOptions } from '../pool/index.js';
import type { MediaReply, MediaRequest } from './media-protocol.js';

export type MediaPoolOptions = Partial<Omit<EnginePoolOptions, 'name'>>;

export const defaults: MediaPoolOptions = {};

export type MediaSuccess<Op extends string> = Extract<MediaReply, { ok: true; op: Op }>;

/** A failure inside a media worker, rebuilt as the error class the caller knows (status and file index kept). */
function rebuild(reply: Extract<MediaReply, { ok: false }>): Error {
  const kinds: Record<string, new (message: string) => Error> = {
    AudioFormatError,
    UnsupportedAudioSettingError,
    ReferenceTooShortError,
    RangeError,
  };
  const Kind = kinds[reply.name] ?? Error;
  const error = new Kind(reply.message);
  if (reply.index !== undefined) Object.assign(error, { index: reply.index });
  if (reply.status !== undefined && !(error as { status?: number }).status) Object.assign(error, { status: reply.status });
  return error;
}

/** The media worker bound to one encoder stream: its operations run in order there. */
export interface MediaStream {
  readonly id: number;
  run<Op extends string>(request: MediaRequest, op: Op): Promise<MediaSuccess<Op>>;
  release(): void;
}

/**
 * Audio work off the event loop, on one pool of worker threads: streaming MP3/Opus encoders (each stream
 * pinned to one worker, where its state lives), decoding and resampling of uploaded audio (samples come back
 * moved, not copied) and voice analysis of references. Beyond the pool's queue a decode or analysis is refused
 * at once with EngineBusyError (503); a stream's work is never refused once it is open.
 */
export class MediaPool {
  private static instance: MediaPool | undefined;
  private readonly pool: EnginePool<MediaRequest, MediaReply>;
  private streams = 0;

  constructor(options: MediaPoolOptions = {}) {
    this.pool = new EnginePool(() => startModuleWorker(import.meta.url, 'media-worker'), { name: 'media', ...defaults, ...options });
  }

  /** One pool per process. */
  static shared(): MediaPool {
    MediaPool.instance ??= new MediaPool();
    return MediaPool.instance;
  }

  get stats(): PoolStats {
    return this.pool.stats;
  }

  /** Opens an encoder stream on the worker with the fewest streams; resolves with what it will produce. */
  async openStream(options: EncoderOptions): Promise<{ stream: MediaStream; opened: MediaSuccess<'open'> }> {
    const pinned = this.pool.pin();
    const id = ++this.streams;
    const stream: MediaStream = {
      id,
      run: async (request, op) => expect(await pinned.run(request, transferOf(request)), op),
      release: () => pinned.release(),
    };
    try {
      const opened = await stream.run({ op: 'open', stream: id, options }, 'open');
      return { stream, opened };
    } catch (error) {
      pinned.release();
      throw error;
    }
  }

  /** Decodes WAV/MP3/Ogg Opus/FLAC (bytes, or a file's path) to mono PCM, at `sampleRate` when given (else the file's rate). */
  async decode(file: Uint8Array | string, options: { sampleRate?: number } & RunOptions = {}): Promise<MediaSuccess<'decode'>> {
    const { signal, sampleRate } = options;
    const request: MediaRequest = { op: 'decode', file, ...(sampleRate ? { sampleRate } : {}) };
    return expect(await this.pool.run(request, { signal }), 'decode');
  }

  /**
   * Prepares an uploaded voice sample (bytes, or a file's path) in a worker: its measures at the file's rate,
   * the WAV to store (enhanced when asked) and its samples at 16 kHz; unreadable audio is AudioFormatError.
   */
  async prepareSample(file: Uint8Array | string, options: { enhance: boolean } & RunOptions): Promise<MediaSuccess<'sample'>> {
    const { signal, enhance } = options;
    return expect(await this.pool.run({ op: 'prepare-sample', file, enhance }, { signal }), 'sample');
  }

  /** The nearest engine voice to these audio files (decoded, resampled and joined in the worker). */
  async voiceOfFiles(files: Uint8Array[], options: RunOptions = {}): Promise<VoiceSettings> {
    return (await this.pool.run({ op: 'voice', files }, { signal: options.signal }).then((reply) => expect(reply, 'voice'))).voice;
  }

  /** The nearest engine voice to 16 kHz samples (copied to the worker: the caller keeps them). */
  async voiceOfPcm(pcm16k: Int16Array, options: RunOptions = {}): Promise<VoiceSettings> {
    return (await this.pool.run({ op: 'voice-pcm', pcm16k }, { signal: options.signal }).then((reply) => expect(reply, 'voice'))).voice;
  }

  /**
   * Starts every worker and loads the MP3 and Opus encoders in each, so the first streams do not wait for a
   * cold worker (a worker's start and encoder load took ~0.8 s of an admitted response's first byte under load).
   */
  async warmUp(): Promise<void> {
    const workers = Array.from({ length: this.pool.options.size }, () => this.pool.pin());
    try {
      await Promise.all(
        workers.map(async (worker) => {
          for (const format of ['mp3', 'opus'] as const) {
            const stream = ++this.streams;
            expect(await worker.run({ op: 'open', stream, options: { format, inputSampleRate: 16_000 } }), 'open');
            await worker.run({ op: 'close', stream });
          }
        }),
      );
    } finally {
      for (const worker of workers) worker.release();
    }
  }

  async stop(): Promise<void> {
    await this.pool.stop();
  }
}

/** Samples written to an encoder are moved to the worker (the caller hands over a copy it no longer needs). */
function transferOf(request: MediaRequest): RunOptions {
  return request.op === 'write' ? { transfer: [request.pcm.buffer as ArrayBuffer] } : {};
}

function expect<Op extends string>(reply: MediaReply, op: Op): MediaSuccess<Op> {
  if (!reply.ok) throw rebuild(reply);
  if (reply.op !== op) throw new Error(`media worker answered ${reply.op} to ${op}`);
  return reply as MediaSuccess<Op>;
}
