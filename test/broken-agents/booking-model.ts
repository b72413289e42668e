/**
 * A stand-in for a language model that books tables, behind a local OpenAI-compatible endpoint (the
 * `FakeOpenAiServer` of the LLM tests): it reads the caller's last words and answers as a model told to take a
 * booking would, streaming text and tool calls as chat-completion chunks. It needs no weights, so an LLM agent's
 * scenario suite runs offline and gives the same verdict every time.
 *
 * `bookings` is how many `book_table` calls one answer carries: 1 for the healthy model, 2 for the broken one
 * that books the same table twice (the double-booking regression a suite must catch).
 */
import type { ServerResponse } from 'node:http';
import { pathToFileURL } from 'node:url';
import { chunk, FakeOpenAiServer, startStream, type SeenRequest } from '../support/fake-openai-server.js';

interface ToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

const numberWords = ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve'];

/** The party size in the caller's words: a number word or digits, 1..12. */
function partySize(text: string): number | undefined {
  for (const word of text.toLowerCase().split(/[^a-z0-9]+/)) {
    const index = numberWords.indexOf(word);
    if (index >= 0) return index + 1;
    if (/^\d+$/.test(word) && Number(word) >= 1 && Number(word) <= 12) return Number(word);
  }
  return undefined;
}

function lastOf(messages: Array<Record<string, unknown>>, role: string): string {
  const found = [...messages].reverse().find((message) => message['role'] === role);
  return typeof found?.['content'] === 'string' ? found['content'] : '';
}

/** What the model answers to the conversation so far: words, and the tools it calls with them. */
export function bookingAnswer(messages: Array<Record<string, unknown>>, bookings: number): { text: string; tools: ToolCall[] } {
  const caller = lastOf(messages, 'user');
  const asked = lastOf(messages, 'assistant');
  const expect = (expectation: Record<string, unknown>): ToolCall => ({ name: 'expect_answer', arguments: { expectations: [expectation] } });
  if (/shall i book it/i.test(asked) && /\b(yes|yeah|yep|sure|correct|please)\b/i.test(caller)) {
    const party = partySize(messages.map((m) => (m['role'] === 'user' && typeof m['content'] === 'string' ? m['content'] : '')).join(' ')) ?? 2;
    const book: ToolCall = { name: 'book_table', arguments: { party, time: '8 pm' } };
    return { text: 'Booked. See you tonight at eight. Goodbye!', tools: [...Array.from({ length: bookings }, () => book), { name: 'end_call', arguments: { reason: 'booked' } }] };
  }
  if (/shall i book it/i.test(asked) && /\b(no|nope)\b/i.test(caller)) {
    return { text: 'No problem. How many people should I book for?', tools: [expect({ kind: 'number', min: 1, max: 12 })] };
  }
  const party = partySize(caller);
  if (party !== undefined) return { text: `A table for ${party} tonight at eight. Shall I book it?`, tools: [expect({ kind: 'yes-no' })] };
  if (/\b(book|table|reserve|reservation)\b/i.test(caller)) return { text: 'Sure. How many people?', tools: [expect({ kind: 'number', min: 1, max: 12 })] };
  return { text: 'I can book you a table for tonight. How many people?', tools: [expect({ kind: 'number', min: 1, max: 12 })] };
}

function answer(res: ServerResponse, request: SeenRequest, bookings: number): void {
  startStream(res);
  const messages = request.body.messages ?? [];
  // The follow-up request after a tool that ran (expect_answer): the words were already said.
  if (messages.at(-1)?.['role'] === 'tool') {
    res.end('data: [DONE]\n\n');
    return;
  }
  const { text, tools } = bookingAnswer(messages, bookings);
  for (const word of text.split(/(?<= )/)) res.write(chunk({ role: 'assistant', content: word }));
  tools.forEach((tool, index) => {
    res.write(chunk({ tool_calls: [{ index, id: `call_${messages.length}_${index}`, type: 'function', function: { name: tool.name, arguments: '' } }] }));
    res.write(chunk({ tool_calls: [{ index, function: { arguments: JSON.stringify(tool.arguments) } }] }));
  });
  res.end('data: [DONE]\n\n');
}

/** Starts the booking model on loopback (a free port by default); `bookings: 2` is the broken model that books twice. */
export async function startBookingModel(bookings = 1, port = 0): Promise<FakeOpenAiServer> {
  const server = new FakeOpenAiServer();
  server.fallback = (res, request) => answer(res, request, bookings);
  return server.start(port);
}

// `npx tsx test/broken-agents/booking-model.ts [PORT] [--twice]`: serves the model until stopped.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const port = Number(process.argv.find((arg) => /^\d+$/.test(arg)) ?? 8089);
  const server = await startBookingModel(process.argv.includes('--twice') ? 2 : 1, port);
  process.stdout.write(`booking model at ${server.baseUrl}\n`);
}
