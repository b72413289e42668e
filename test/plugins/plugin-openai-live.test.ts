/**
 * Against a real OpenAI-compatible endpoint; skipped unless one is configured:
 *   SHOAL_LLM_URL=http://127.0.0.1:8080/v1 [SHOAL_LLM_MODEL=name] npx vitest run test/plugins/plugin-openai-live.test.ts
 *   OPENAI_API_KEY=sk-... npx vitest run test/plugins/plugin-openai-live.test.ts          # api.openai.com, gpt-4o-mini
 */
import { describe, expect, it } from 'vitest';
import { lastValueFrom, toArray } from 'rxjs';
import { z } from 'zod';
import { ChatCompletionDialogue, defineTool } from '../../plugins/index.js';

const url = process.env.SHOAL_LLM_URL ?? (process.env.OPENAI_API_KEY ? 'https://api.openai.com/v1' : undefined);

describe.skipIf(!url)('OpenAI-compatible dialogue against a live endpoint', () => {
  const dialogue = (tools = [] as ReturnType<typeof defineTool>[]) =>
    new ChatCompletionDialogue({ baseUrl: url!, model: process.env.SHOAL_LLM_MODEL ?? 'gpt-4o-mini', temperature: 0, tools });

  it('streams a spoken answer', async () => {
    const outputs = await lastValueFrom(dialogue().respond({ history: [], userText: 'Say hello in five words or fewer.' }).pipe(toArray()));
    const text = outputs.flatMap((o) => (o.type === 'text' ? [o.delta] : [])).join('');
    expect(text.trim().length).toBeGreaterThan(0);
  }, 60_000);

  it('calls a typed tool, gets its result and answers with it', async () => {
    let ran = 0;
    const hours = defineTool({
      name: 'get_opening_hours',
      description: 'Opening hours of the restaurant on a given day.',
      parameters: z.object({ day: z.string() }),
      run: () => {
        ran++;
        return { opens: '17:00', closes: '23:00' };
      },
    });
    const outputs = await lastValueFrom(dialogue([hours]).respond({ history: [], userText: 'When do you open on Friday? Use the tool.' }).pipe(toArray()));
    expect(ran).toBe(1);
    const text = outputs.flatMap((o) => (o.type === 'text' ? [o.delta] : [])).join('');
    expect(text).toMatch(/5|17|five/i);
  }, 60_000);
});
