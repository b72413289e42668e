import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { lastValueFrom, toArray } from 'rxjs';
import { agents, createDialogue, UnknownAgentError } from '../../agents/index.js';
import type { ConversationMessage, Dialogue, DialogueOutput } from '../../src/agent/index.js';

interface CallFixture { file: string; turns: string[] }
const manifest = JSON.parse(readFileSync('test/fixtures/calls/manifest.json', 'utf8')) as CallFixture[];
const turnsOf = (file: string) => manifest.find((c) => c.file === file)!.turns;

/** What pocketsphinx_continuous (Debian en-us model) heard on these recordings, mistakes included. */
const recognised: Record<string, string[]> = {
  'booking-16k.wav': ['hello i would like to put the table for two people tonight', 'yes that sounds good', 'goodbye'],
  'support-16k.wav': ['what is my account balance', 'please transfer me to a human agent', 'no sent you'],
};

async function runCall(dialogue: Dialogue, turns: readonly string[]) {
  const history: ConversationMessage[] = [];
  const replies: Array<{ text: string; outputs: DialogueOutput[] }> = [];
  for (const userText of turns) {
    const outputs = await lastValueFrom(dialogue.respond({ history, userText }).pipe(toArray()));
    const text = outputs.flatMap((o) => (o.type === 'text' ? [o.delta] : [])).join('');
    history.push({ role: 'user', text: userText }, { role: 'agent', text });
    replies.push({ text, outputs });
  }
  return replies;
}

const ends = (outputs: DialogueOutput[]) => outputs.some((o) => o.type === 'end-call');
const tools = (outputs: DialogueOutput[]) => outputs.flatMap((o) => (o.type === 'tool-call' ? [o.name] : []));

describe('agent registry', () => {
  it('offers the receptionist, the support line and echo, each creating a fresh dialogue', () => {
    expect(Object.keys(agents).sort()).toEqual(['echo', 'receptionist', 'support']);
    for (const [name, entry] of Object.entries(agents)) {
      expect(entry.description.length).toBeGreaterThan(10);
      const a = entry.create();
      expect(a).not.toBe(entry.create());
      expect(a.name).toBe(name);
      expect(a.greeting?.()).toBeTruthy();
    }
  });

  it('names the available agents when asked for one that does not exist', () => {
    expect(() => createDialogue('concierge')).toThrow(UnknownAgentError);
    expect(() => createDialogue('concierge')).toThrow(/receptionist, support, echo/);
    expect(() => createDialogue('toString')).toThrow(UnknownAgentError);
  });
});

describe('every fixture call, through the agent it was recorded for', () => {
  const agentFor = (file: string) => (file.startsWith('booking') ? 'receptionist' : 'support');
  it.each(manifest.map((c) => [c.file, c.turns] as const))('%s: each turn gets a reply and the last one ends the call', async (file, turns) => {
    const replies = await runCall(createDialogue(agentFor(file)), turns);
    expect(replies).toHaveLength(turns.length);
    for (const reply of replies) expect(reply.text.length).toBeGreaterThan(0);
    expect(replies.map((r) => ends(r.outputs))).toEqual(turns.map((_, i) => i === turns.length - 1));
    expect(replies.some((r) => /sorry|didn't catch/i.test(r.text))).toBe(false);
  });
});

describe.each([
  ['as scripted', (file: string) => turnsOf(file)],
  ['as pocketsphinx heard it', (file: string) => recognised[file]!],
])('fixture calls %s', (_label, turns) => {
  it('booking call through the receptionist: offers a time, confirms, ends on goodbye', async () => {
    const replies = await runCall(createDialogue('receptionist'), turns('booking-16k.wav'));
    expect(replies[0]!.text).toBe('I have a table for 2 tonight at 7 pm. Does that sound good?');
    expect(replies[1]!.text).toMatch(/^Wonderful, your table for 2 tonight at 7 pm is booked\./);
    expect(replies[1]!.outputs).toContainEqual({ type: 'tool-call', name: 'book_table', arguments: { party_size: 2, day: 'tonight', time: '7 pm' } });
    expect(replies[2]!.text).toBe('Thank you for calling. Goodbye!');
    expect(replies.map((r) => ends(r.outputs))).toEqual([false, false, true]);
  });

  it('support call through the support agent: balance, transfer, polite ending', async () => {
    const replies = await runCall(createDialogue('support'), turns('support-16k.wav'));
    expect(replies[0]!.text).toMatch(/balance.*human agent.*transfer you\?$/);
    expect(replies[1]!.text).toMatch(/^Of course, I'm transferring you to a human agent\./);
    expect(tools(replies[1]!.outputs)).toEqual(['transfer_call']);
    expect(replies[2]!.text).toMatch(/Thank you for calling.*Goodbye!$/);
    expect(replies.map((r) => ends(r.outputs))).toEqual([false, false, true]);
  });

  it('support call through the receptionist: declines politely, acknowledges the transfer, ends', async () => {
    const replies = await runCall(createDialogue('receptionist'), turns('support-16k.wav'));
    expect(replies[0]!.text).toBe('Sorry, I can only help with table bookings and opening hours here. Would you like to book a table?');
    expect(replies[1]!.text).toMatch(/member of our staff will call you back/);
    expect(tools(replies[1]!.outputs)).toEqual(['transfer_call']);
    expect(replies[2]!.text).toBe('Thank you for calling. Goodbye!');
    expect(replies.map((r) => ends(r.outputs))).toEqual([false, false, true]);
  });
});

describe('receptionist beyond the fixtures', () => {
  it('asks for what is missing and takes a volunteered name', async () => {
    const replies = await runCall(createDialogue('receptionist'), ['i want to reserve a table', 'four people', 'saturday at eight thirty my name is ada']);
    expect(replies.map((r) => r.text)).toEqual([
      'Lovely. How many people will be joining?',
      'For which day would you like the table?',
      'I have a table for 4 on Saturday at 8:30 pm under the name Ada. Does that sound good?',
    ]);
  });

  it('answers opening hours and lets the caller change the time', async () => {
    const replies = await runCall(createDialogue('receptionist'), ['when are you open', 'yes book a table for two tonight', 'no', 'nine pm', 'yes']);
    expect(replies[0]!.text).toMatch(/open every day/);
    expect(replies[1]!.text).toBe('I have a table for 2 tonight at 7 pm. Does that sound good?');
    expect(replies[2]!.text).toBe('No problem. What time would suit you better?');
    expect(replies[3]!.text).toBe('I have a table for 2 tonight at 9 pm. Does that sound good?');
    expect(replies[4]!.text).toMatch(/table for 2 tonight at 9 pm is booked/);
  });
});
