/** The official `openai` client pointed at a `shoal serve`, and what the OpenAI-compatible tests check with it. */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll } from 'vitest';
import { creditsToMicros } from '../../src/service/store/index.js';
import { startServeProcess, type ServeProcess } from './serve-process.js';

export const clip = (name: string) => readFile(join(import.meta.dirname, '../fixtures/speech', name));

export function openAiClient(url: string, key: string, maxRetries = 0): OpenAI {
  return new OpenAI({ baseURL: `${url}/v1`, apiKey: key, maxRetries, timeout: 60_000 });
}

export async function audioFile(name: string) {
  return toFile(await clip(name), name, { type: 'audio/wav' });
}

/** The events of a server-sent-events body (`data:` lines as JSON). */
export async function sseEvents(response: Response): Promise<Record<string, unknown>[]> {
  const text = await response.text();
  return text
    .split('\n\n')
    .map((block) => block.trim())
    .filter((block) => block.startsWith('data: '))
    .map((block) => JSON.parse(block.slice('data: '.length)) as Record<string, unknown>);
}

export const sentence = 'What time do you open on Saturday? We would like to come for lunch with the whole family.';

/** A `shoal serve` (SQLite, `--key-rate 5`, `--tts-streams 4`) for one test file, and clients of its users. */
export interface OpenAiServe {
  /** The server, once started. */
  readonly serve: ServeProcess;
  /**
   * The client of the `main` user, shared by the file's tests: it retries a 429 after the server's Retry-After (as the
   * SDK does by default), since the tests before may have spent the key's one-second window.
   */
  readonly client: OpenAI;
  /** A client of a user of its own, so each test has its own request rate (the server runs with `--key-rate 5`). */
  freshClient(id: string, credits?: number): Promise<OpenAI>;
}

/** Starts the server before the file's tests (its recogniser loaded then, not inside a test's time) and stops it after. */
export function serveForOpenAi(): OpenAiServe {
  let serve: ServeProcess | undefined;
  let client: OpenAI | undefined;
  const freshClient = async (id: string, credits = 10) => {
    const user = await serve!.addUser(id, creditsToMicros(credits));
    return openAiClient(serve!.url, user.key);
  };
  beforeAll(async () => {
    serve = await startServeProcess({ args: ['--key-rate', '5', '--tts-streams', '4'] });
    client = openAiClient(serve.url, (await serve.addUser('main', creditsToMicros(10))).key, 3);
    await client.audio.transcriptions.create({ file: await audioFile('slt_05.wav'), model: 'whisper-1' });
  }, 120_000);
  afterAll(async () => serve?.stop());
  return {
    get serve() {
      return serve!;
    },
    get client() {
      return client!;
    },
    freshClient,
  };
}
