import type OpenAI from 'openai';
import { importOptional } from '../optional/index.js';
import type { JudgeQuestion } from './checks.js';

/** Where `judge:` criteria are sent: an OpenAI-compatible chat-completions API. */
export interface JudgeOptions {
  url: string;
  model?: string;
  /** $OPENAI_API_KEY when absent; none for most local servers. */
  key?: string;
}

export const judgeDefaults = { model: 'gpt-4o-mini', timeoutMs: 60_000 };

export interface Verdict {
  pass: boolean;
  reason: string;
}

const instructions =
  'You judge a phone call between a caller and a voice agent. You are given a criterion and what the agent said ' +
  '(or the whole transcript). Answer with one JSON object and nothing else: {"pass": true|false, "reason": "<one short sentence>"}.';

/** Asks the LLM whether `question.text` meets `question.criterion`. A reply that is not a verdict is a failure. */
export async function judge(question: JudgeQuestion, options: JudgeOptions): Promise<Verdict> {
  // The openai SDK is an optional peer: loaded only when a judge is asked, with an error naming the install when absent.
  const { default: OpenAIClient } = await importOptional<{ default: typeof OpenAI }>('openai');
  const apiKey = options.key ?? process.env.OPENAI_API_KEY;
  const client = new OpenAIClient({
    baseURL: options.url,
    apiKey: apiKey ?? 'unused',
    timeout: judgeDefaults.timeoutMs,
    maxRetries: 1,
    defaultHeaders: apiKey ? {} : { Authorization: null },
  });
  const stream = await client.chat.completions.create({
    model: options.model ?? judgeDefaults.model,
    temperature: 0,
    stream: true,
    messages: [
      { role: 'system', content: instructions },
      { role: 'user', content: `Criterion: ${question.criterion}\n\n${question.step === undefined ? 'Transcript' : 'The agent said'}:\n${question.text || '(nothing)'}` },
    ],
  });
  let answer = '';
  for await (const chunk of stream) answer += chunk.choices[0]?.delta.content ?? '';
  return verdictOf(answer);
}

/** Reads the judge's answer: the JSON verdict, or a bare PASS/FAIL as some small models answer. */
export function verdictOf(answer: string): Verdict {
  const json = /\{[\s\S]*\}/.exec(answer)?.[0];
  if (json) {
    try {
      const parsed = JSON.parse(json) as { pass?: unknown; reason?: unknown };
      if (typeof parsed.pass === 'boolean') return { pass: parsed.pass, reason: String(parsed.reason ?? '') };
    } catch {
      // not JSON after all: read it as words below
    }
  }
  const word = /\b(pass|fail)\b/i.exec(answer)?.[1]?.toLowerCase();
  if (word) return { pass: word === 'pass', reason: answer.trim().slice(0, 200) };
  return { pass: false, reason: `the judge gave no verdict: ${answer.trim().slice(0, 200) || '(empty answer)'}` };
}
