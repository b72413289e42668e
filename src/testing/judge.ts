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

/** The judge's answer: the criterion holds (pass), does not (fail), or the text does not tell (maybe). */
export interface Verdict {
  verdict: 'pass' | 'fail' | 'maybe';
  reason: string;
}

/** A criterion the judge was asked about, and its verdict. */
export interface JudgedCriterion extends Verdict {
  step?: number;
  criterion: string;
}

const instructions =
  'You judge a phone call between a caller and a voice agent. You are given a criterion and what the agent said ' +
  '(or the whole transcript). Answer with one JSON object and nothing else: ' +
  '{"verdict": "pass"|"fail"|"maybe", "reason": "<one short sentence>"}; "maybe" when the text does not tell.';

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

const verdicts = ['pass', 'fail', 'maybe'] as const;

/** Reads the judge's answer: the JSON verdict (or `{"pass": true|false}`), or a bare PASS/FAIL/MAYBE as some small models answer. */
export function verdictOf(answer: string): Verdict {
  const json = /\{[\s\S]*\}/.exec(answer)?.[0];
  if (json) {
    try {
      const parsed = JSON.parse(json) as { verdict?: unknown; pass?: unknown; reason?: unknown };
      const reason = String(parsed.reason ?? '');
      const verdict = typeof parsed.verdict === 'string' ? parsed.verdict.toLowerCase() : undefined;
      if (verdicts.includes(verdict as Verdict['verdict'])) return { verdict: verdict as Verdict['verdict'], reason };
      if (typeof parsed.pass === 'boolean') return { verdict: parsed.pass ? 'pass' : 'fail', reason };
    } catch {
      // not JSON after all: read it as words below
    }
  }
  const word = /\b(pass|fail|maybe)\b/i.exec(answer)?.[1]?.toLowerCase();
  if (word) return { verdict: word as Verdict['verdict'], reason: answer.trim().slice(0, 200) };
  return { verdict: 'fail', reason: `the judge gave no verdict: ${answer.trim().slice(0, 200) || '(empty answer)'}` };
}
