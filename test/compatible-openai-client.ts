/** The official `openai` client pointed at a `shoal serve`, and what the OpenAI-compatible tests check with it. */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import OpenAI, { toFile } from 'openai';

export const clip = (name: string) => readFile(join(import.meta.dirname, 'fixtures', 'speech', name));

export function openAiClient(url: string, key: string): OpenAI {
  return new OpenAI({ baseURL: `${url}/v1`, apiKey: key, maxRetries: 0, timeout: 60_000 });
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
