import { createEncoder, inlineEncoder, type AsyncStreamingEncoder, type AudioFormat, type EncoderOptions } from '../../audio/index.js';
import { MediaPool, type MediaStream } from './media-pool.js';

/** Formats whose encoding costs real CPU and so runs in a media worker; WAV and PCM are byte copies. */
const workerFormats: ReadonlySet<AudioFormat> = new Set(['mp3', 'opus']);

/**
 * An encoder for `options`: MP3 and Opus run in a media worker (the stream stays pinned to that worker, where
 * its state lives), WAV and PCM on the calling thread. Written samples are copied once and moved to the worker.
 */
export async function openEncoder(options: EncoderOptions, pool: MediaPool = MediaPool.shared()): Promise<AsyncStreamingEncoder> {
  if (!workerFormats.has(options.format)) return inlineEncoder(await createEncoder(options));
  const { stream, opened } = await pool.openStream(options);
  return new WorkerEncoder(stream, options.format, opened);
}

class WorkerEncoder implements AsyncStreamingEncoder {
  readonly sampleRate: number;
  readonly inputSampleRate: number;
  readonly contentType: string;
  private state: 'open' | 'ended' | 'closed' = 'open';

  constructor(
    private readonly stream: MediaStream,
    readonly format: AudioFormat,
    opened: { sampleRate: number; inputSampleRate: number; contentType: string },
  ) {
    this.sampleRate = opened.sampleRate;
    this.inputSampleRate = opened.inputSampleRate;
    this.contentType = opened.contentType;
  }

  async write(pcm: Int16Array): Promise<Uint8Array> {
    this.assertOpen();
    return (await this.stream.run({ op: 'write', stream: this.stream.id, pcm: pcm.slice() }, 'bytes')).bytes;
  }

  async end(): Promise<Uint8Array> {
    this.assertOpen();
    this.state = 'ended';
    try {
      return (await this.stream.run({ op: 'end', stream: this.stream.id }, 'bytes')).bytes;
    } finally {
      this.stream.release();
    }
  }

  close(): void {
    if (this.state !== 'open') return;
    this.state = 'closed';
    this.stream
      .run({ op: 'close', stream: this.stream.id }, 'bytes')
      .catch(() => {})
      .finally(() => this.stream.release());
  }

  private assertOpen(): void {
    if (this.state !== 'open') throw new Error(`encoder already ${this.state}`);
  }
}
