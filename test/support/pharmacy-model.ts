/**
 * A stand-in for a language model running the pharmacy refill flow (agents/pharmacy/pharmacy.yaml), behind a
 * local OpenAI-compatible endpoint, plus the pharmacy's own endpoints the flow's http tools call
 * (`POST /identity`, `POST /refills`). It answers each request as an eager model would, keyed on what it
 * receives: the step's task in the system prompt, the tools offered, the caller's last words. It calls
 * `place_refill` whenever the caller asks for a refill with a number — offered or not — so only the flow's
 * structure keeps a caller from skipping identification.
 */
import type { ServerResponse } from 'node:http';
import { pathToFileURL } from 'node:url';
import { chunk, FakeOpenAiServer, startStream, type SeenRequest } from './fake-openai-server.js';

/** The caller on file: born on the 3rd of February 1980. */
const birthday = /(feb|february).*\b(3|third)\b|\b(3|third)\b.*(feb|february)/i;

interface Answer {
  text: string;
  tools: Array<{ name: string; arguments: Record<string, unknown> }>;
}

const digitWords: Record<string, string> = { zero: '0', oh: '0', o: '0', one: '1', two: '2', to: '2', too: '2', three: '3', four: '4', for: '4', five: '5', six: '6', seven: '7', eight: '8', nine: '9' };

/** A seven-digit number in the caller's words, read from digits or digit words. */
export function sevenDigits(text: string): string | undefined {
  const digits = text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .map((word) => (/^\d+$/.test(word) ? word : (digitWords[word] ?? ' ')))
    .join('')
    .split(' ')
    .find((run) => run.length === 7);
  return digits;
}

/** The name of the tool a tool result answers. */
function calledTool(messages: Array<Record<string, unknown>>, id: unknown): string {
  for (const message of messages) {
    const calls = (message['tool_calls'] ?? []) as Array<{ id: string; function: { name: string } }>;
    const call = calls.find((c) => c.id === id);
    if (call) return call.function.name;
  }
  return '';
}

const text = (message: Record<string, unknown> | undefined) => (typeof message?.['content'] === 'string' ? message['content'] : '');

/** What the model says and calls in reply to `messages`, offered `tools`. */
export function pharmacyAnswer(messages: Array<Record<string, unknown>>, tools: readonly string[]): Answer {
  const system = text(messages[0]);
  const last = messages.at(-1);
  if (last?.['role'] === 'user' && /^Summarise/.test(text(last))) return { text: 'The caller was identified by date of birth.', tools: [] };
  if (last?.['role'] === 'tool') {
    const result = text(last);
    if (/no tool named \\"place_refill\\"/.test(result)) return { text: 'I need to confirm who you are first. What is your date of birth?', tools: [] };
    // A result of this step's tool is answered; one from the step before (context: append) opens the new step.
    if (tools.includes(calledTool(messages, last['tool_call_id']))) return { text: /"ok":\s*false/.test(result) ? 'That did not work.' : 'Done.', tools: [] };
  }
  const caller = last?.['role'] === 'user' ? text(last) : '';
  const rx = sevenDigits(caller);
  if (/\b(pharmacist|person|human)\b/i.test(caller) && tools.includes('transfer_call')) return { text: '', tools: [{ name: 'transfer_call', arguments: { to: 'pharmacist' } }] };
  if (/\brefill\b/i.test(caller) && rx) return { text: '', tools: [{ name: 'place_refill', arguments: { rx } }] };
  if (/date of birth/i.test(system)) {
    if (caller && tools.includes('verify_identity')) return { text: '', tools: [{ name: 'verify_identity', arguments: { date_of_birth: caller } }] };
    return { text: 'What is your date of birth?', tools: [] };
  }
  if (/prescription number;/i.test(system)) {
    if (rx && tools.includes('fill_slots')) return { text: '', tools: [{ name: 'fill_slots', arguments: { rx } }] };
    return { text: 'Thank you. What is the seven digit prescription number?', tools: [] };
  }
  const known = /Read back prescription number (\d{7})/.exec(system)?.[1];
  if (known) {
    if (/\b(yes|yeah|yep|sure|correct|please)\b/i.test(caller) && tools.includes('place_refill')) return { text: '', tools: [{ name: 'place_refill', arguments: { rx: known } }] };
    if (/\b(no|nope|wrong)\b/i.test(caller) && tools.includes('goto')) return { text: '', tools: [{ name: 'goto', arguments: { state: 'prescription' } }] };
    return { text: `That is prescription ${known.split('').join(' ')}. Shall I place the refill?`, tools: [] };
  }
  return { text: 'How can I help with your refill?', tools: [] };
}

function answer(res: ServerResponse, request: SeenRequest, refills: string[]): void {
  const reply = (body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  if (request.path === '/identity') return void reply({ ok: birthday.test(String(request.body['date_of_birth'] ?? '')) });
  if (request.path === '/refills') {
    refills.push(String(request.body['rx']));
    return void reply({ ok: true, ready: 'tomorrow' });
  }
  const offered = ((request.body.tools ?? []) as Array<{ function: { name: string } }>).map((tool) => tool.function.name);
  const { text: words, tools } = pharmacyAnswer(request.body.messages ?? [], offered);
  startStream(res);
  for (const word of words.split(/(?<= )/).filter(Boolean)) res.write(chunk({ role: 'assistant', content: word }));
  tools.forEach((tool, index) => {
    res.write(chunk({ tool_calls: [{ index, id: `call_${request.body.messages?.length ?? 0}_${index}`, type: 'function', function: { name: tool.name, arguments: '' } }] }));
    res.write(chunk({ tool_calls: [{ index, function: { arguments: JSON.stringify(tool.arguments) } }] }));
  });
  res.end('data: [DONE]\n\n');
}

/** Starts the pharmacy double on loopback; `refills` collects the prescription numbers refilled through `/refills`. */
export async function startPharmacyModel(port = 0): Promise<FakeOpenAiServer & { refills: string[] }> {
  const server = Object.assign(new FakeOpenAiServer(), { refills: [] as string[] });
  server.fallback = (res, request) => answer(res, request, server.refills);
  return server.start(port);
}

// `npx tsx test/support/pharmacy-model.ts [PORT]`: serves the double (default 8091, the flow's llm.url) until stopped.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const port = Number(process.argv.find((arg) => /^\d+$/.test(arg)) ?? 8091);
  const server = await startPharmacyModel(port);
  process.stdout.write(`pharmacy model at ${server.baseUrl}\n`);
}
