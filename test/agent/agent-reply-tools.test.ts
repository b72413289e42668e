import { describe, expect, it } from 'vitest';
import { toChatMessages } from '../../plugins/index.js';
import type { AgentEvent } from '../../src/agent/index.js';
import { ReplyTools } from '../../src/agent/reply-tools.js';

const lookup = { type: 'tool-call' as const, id: 'call_1', name: 'find_booking', arguments: { name: 'Ada' }, result: { time: '7 pm' } };
const text = 'Let me check. You are booked for seven tonight, see you then.';

describe('a reply\'s tool calls in the conversation', () => {
  it('keeps the tool call where it came and cuts the words to what the caller heard on barge-in', () => {
    const tools = new ReplyTools(1, false, () => 1, () => undefined);
    tools.record(lookup, 'Let me check.'.length);
    expect(tools.history(text, 'Let me check. You are booked', true)).toEqual([
      { role: 'agent', text: 'Let me check.' },
      { role: 'tool', text: '{"time":"7 pm"}', tool: { id: 'call_1', name: 'find_booking', arguments: { name: 'Ada' }, result: { time: '7 pm' } } },
      { role: 'agent', text: 'You are booked', interrupted: true },
    ]);
  });

  it('keeps a tool call that ran even when the caller heard none of the words after it', () => {
    const tools = new ReplyTools(1, false, () => 1, () => undefined);
    tools.record({ ...lookup, result: undefined, error: 'booking system down' }, 'Let me check.'.length);
    const history = tools.history(text, 'Let', true);
    expect(history.map((m) => [m.role, m.text, m.interrupted])).toEqual([
      ['agent', 'Let', undefined],
      ['tool', 'booking system down', undefined],
      ['agent', '', true],
    ]);
    expect(toChatMessages([{ role: 'user', text: 'when am I booked?' }, ...history])).toEqual([
      { role: 'user', content: 'when am I booked?' },
      { role: 'assistant', content: 'Let', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'find_booking', arguments: '{"name":"Ada"}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: '{"error":"booking system down"}' },
      { role: 'assistant', content: '[interrupted by the caller]' },
    ]);
  });

  it('gives a tool call that no words came before an assistant message of its own, and skips tool entries without a call', () => {
    const call = { id: 'call_2', name: 'find_booking', arguments: {}, result: null };
    expect(
      toChatMessages([
        { role: 'user', text: 'am I booked?' },
        { role: 'tool', text: 'null', tool: call },
        { role: 'tool', text: 'a note without a call' },
        { role: 'agent', text: 'You are not.' },
      ]),
    ).toEqual([
      { role: 'user', content: 'am I booked?' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_2', type: 'function', function: { name: 'find_booking', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'call_2', content: 'null' },
      { role: 'assistant', content: 'You are not.' },
    ]);
  });

  it('holds a speculative reply\'s tool-call events until its fate is known, then says whether it was kept', async () => {
    const events: AgentEvent[] = [];
    const kept = new ReplyTools(3, true, () => 2, (event) => events.push(event));
    const dropped = new ReplyTools(4, true, () => undefined, (event) => events.push(event));
    kept.record(lookup, 0);
    dropped.record(lookup, 0);
    expect(events).toEqual([]);
    const fate = kept.speculative!.kept();
    kept.keep();
    dropped.discard();
    kept.discard(); // too late: a kept reply stays kept
    expect(await fate).toBe(true);
    expect(await dropped.speculative!.kept()).toBe(false);
    expect(events.map((e) => e.type === 'tool-call' && [e.reply, e.turn, e.kept, e.speculative])).toEqual([
      [3, 2, true, true],
      [4, undefined, false, true],
    ]);
  });
});
