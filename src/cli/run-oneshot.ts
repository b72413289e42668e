import { rename, rm } from 'node:fs/promises';
import { createWriteStream } from 'node:fs';
import { extname } from 'node:path';
import { once } from 'node:events';
import { InvalidArgumentError } from 'commander';
import { SpeechClient, type AudioFormat } from '../client/index.js';
import type { AsrCommandOptions, ServiceConnectionOptions, TtsCommandOptions } from './options.js';

const FORMAT_BY_EXTENSION: Record<string, AudioFormat> = { '.wav': 'wav', '.mp3': 'mp3', '.opus': 'opus', '.ogg': 'opus', '.pcm': 'pcm' };

/** A client for `--service-url`, or for the self-hosted service started in this process. */
async function connect(options: ServiceConnectionOptions): Promise<{ client: SpeechClient; close(): Promise<void> }> {
  if (options.serviceUrl) {
    return { client: new SpeechClient({ baseUrl: options.serviceUrl, apiKey: options.apiKey }), close: async () => undefined };
  }
  const { startEmbeddedService } = await import('../service/index.js');
  const embedded = await startEmbeddedService({ logLevel: 'warn' });
  return { client: new SpeechClient({ baseUrl: embedded.url, apiKey: embedded.apiKey }), close: () => embedded.close() };
}

/** `shoal tts TEXT -o FILE`: streams the audio to a temporary file and renames it, so a failure leaves no partial file. */
export async function runTts(text: string, options: TtsCommandOptions): Promise<void> {
  const format = FORMAT_BY_EXTENSION[extname(options.out).toLowerCase()];
  if (!format) throw new InvalidArgumentError(`cannot tell the format of ${options.out}; use .wav, .mp3, .opus, .ogg or .pcm`);
  if (!text.trim()) throw new InvalidArgumentError('the text to synthesise is empty');
  const { client, close } = await connect(options);
  const partial = `${options.out}.partial`;
  try {
    const stream = client.tts(
      {
        text,
        format,
        ...(options.voice ? { reference_id: options.voice } : {}),
        ...(options.speed !== undefined ? { prosody: { speed: options.speed } } : {}),
        ...(options.sampleRate !== undefined ? { sample_rate: options.sampleRate } : {}),
      },
      { ...(options.model ? { model: options.model } : {}) },
    );
    const file = createWriteStream(partial);
    let bytes = 0;
    try {
      for await (const chunk of stream) {
        bytes += chunk.byteLength;
        if (!file.write(chunk)) await once(file, 'drain');
      }
    } finally {
      file.end();
      await once(file, 'close');
    }
    await rename(partial, options.out);
    process.stdout.write(`wrote ${options.out} (${format}, ${bytes} bytes)\n`);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  } finally {
    await close();
  }
}

/** `shoal asr FILE`: prints the transcript, or the whole result with timed segments as JSON. */
export async function runAsr(file: string, options: AsrCommandOptions): Promise<void> {
  const { client, close } = await connect(options);
  try {
    const result = await client.transcribe(file, { ...(options.language ? { language: options.language } : {}), timestamps: Boolean(options.json) });
    process.stdout.write(options.json ? `${JSON.stringify(result, null, 2)}\n` : `${result.text}\n`);
  } finally {
    await close();
  }
}

