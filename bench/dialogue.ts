/**
 * How long a scripted dialogue takes to decide a reply: the ready-made receptionist and support agents answer
 * the caller turns of the fixture calls (test/fixtures/calls/manifest.json), each call replayed many times with
 * a fresh dialogue. Prints one JSON object: p50 / p95 ms per reply, and the load average.
 * Run: npx tsx bench/dialogue.ts [--rounds N]
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { lastValueFrom, toArray } from 'rxjs';
import { createDialogue } from '../agents/index.js';
import type { ConversationMessage } from '../src/agent/index.js';

const roundsAt = process.argv.indexOf('--rounds');
const rounds = roundsAt > 0 ? Number(process.argv[roundsAt + 1]) : 200;
const calls = JSON.parse(readFileSync('test/fixtures/calls/manifest.json', 'utf8')) as Array<{ file: string; turns: string[] }>;
const agentOf = (file: string) => (file.startsWith('support') ? 'support' : 'receptionist');

const times: number[] = [];
for (let round = 0; round < rounds; round++) {
  for (const call of calls) {
    const dialogue = createDialogue(agentOf(call.file));
    const history: ConversationMessage[] = [];
    for (const userText of call.turns) {
      const started = performance.now();
      const outputs = await lastValueFrom(dialogue.respond({ history, userText }).pipe(toArray()));
      if (round > 0) times.push(performance.now() - started);
      const text = outputs.flatMap((o) => (o.type === 'text' ? [o.delta] : [])).join('');
      history.push({ role: 'user', text: userText }, { role: 'agent', text });
    }
  }
}
times.sort((a, b) => a - b);
const at = (q: number) => Math.round(times[Math.min(times.length - 1, Math.floor(q * times.length))]! * 1000) / 1000;
console.log(JSON.stringify({ replies: times.length, p50_ms: at(0.5), p95_ms: at(0.95), loadavg: loadavg().map((x) => Math.round(x * 100) / 100) }));
