import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lastValueFrom, toArray } from 'rxjs';
import { loadScript, loadScriptedDialogue, parseScript, ScriptReadError, ScriptSyntaxError, ScriptValidationError } from '../../plugins/index.js';

const valid = `
name: demo
start: welcome
slots:
  size: { type: number }
intents:
  hi: { keywords: [hello] }
states:
  welcome:
    on:
      - intent: hi
        reply: Hello, party of {size}?
        goto: welcome
`;

function issuesOf(text: string, source = 'demo.yaml') {
  try {
    parseScript(text, source);
  } catch (error) {
    expect(error).toBeInstanceOf(ScriptValidationError);
    return (error as ScriptValidationError).issues;
  }
  throw new Error('expected the script to be rejected');
}

describe('script validation', () => {
  it('accepts a valid script', () => {
    expect(parseScript(valid, 'demo.yaml').states.welcome!.on![0]!.intent).toBe('hi');
  });

  it('names the path and line of a goto to an unknown state', () => {
    const issues = issuesOf(valid.replace('goto: welcome', 'goto: welcom'));
    expect(issues).toEqual([{ path: 'states.welcome.on[0].goto', line: 13, message: expect.stringMatching(/unknown state "welcom".*welcome/) }]);
  });

  it('names unknown intents, slots in templates, and the start state', () => {
    const issues = issuesOf(valid.replace('intent: hi', 'intent: hey').replace('{size}', '{sise}').replace('start: welcome', 'start: begin'));
    expect(issues.map((i) => i.path).sort()).toEqual(['start', 'states.welcome.on[0].intent', 'states.welcome.on[0].reply']);
    expect(issues.find((i) => i.path === 'states.welcome.on[0].reply')!.message).toMatch(/unknown slot "sise"/);
  });

  it('reports wrong types, missing fields and unknown (misspelt) fields by path', () => {
    const issues = issuesOf(valid.replace('size: { type: number }', 'size: { type: numbr }').replace('        goto: welcome', '        gotoo: welcome').replace('name: demo\n', ''));
    const paths = issues.map((i) => i.path);
    expect(paths).toContain('name');
    expect(paths).toContain('slots.size.type');
    expect(paths).toContain('states.welcome.on[0]');
    expect(issues.find((i) => i.path === 'states.welcome.on[0]')!.message).toMatch(/unknown field "gotoo"/);
  });

  it('rejects a bad regular expression, an empty intent and a collecting state without "then"', () => {
    const text = `
name: x
start: a
slots: { code: { type: pattern, regex: "(unclosed" } }
intents: { empty: {} }
states:
  a: { collect: [code] }
`;
    const issues = issuesOf(text);
    expect(issues.map((i) => i.path).sort()).toEqual(['intents.empty', 'slots.code.regex', 'states.a.then']);
  });

  it('the error message lists every problem with its path and line, so a person can fix the file', () => {
    try {
      parseScript(valid.replace('goto: welcome', 'goto: nowhere'), 'demo.yaml');
      expect.unreachable();
    } catch (error) {
      expect((error as Error).message).toBe(
        'demo.yaml:13: states.welcome.on[0].goto: unknown state "nowhere" (known states: welcome)',
      );
      expect((error as ScriptValidationError).status).toBe(400);
    }
  });

  it('validates JSON scripts the same way', () => {
    const json = JSON.stringify({ name: 'j', start: 'a', intents: { i: { keywords: ['x'] } }, states: { a: { on: [{ intent: 'i', goto: 'b' }] } } });
    expect(() => parseScript(json, 'j.json')).toThrow(/states\.a\.on\[0\]\.goto: unknown state "b"/);
  });

  it('reports YAML and JSON syntax errors with the line', () => {
    expect(() => parseScript('name: x\nstates: [unclosed\n', 'bad.yaml')).toThrow(ScriptSyntaxError);
    expect(() => parseScript('name: x\nname: y\n', 'dup.yaml')).toThrow(/line 2/);
    expect(() => parseScript('{"name": ', 'bad.json', 'json')).toThrow(ScriptSyntaxError);
  });

  it('reports a missing file as a read error', () => {
    expect(() => loadScript('/nonexistent/script.yaml')).toThrow(ScriptReadError);
  });
});

describe('script files', () => {
  it('loads a script file by extension and runs it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shoal-script-'));
    const file = join(dir, 'demo.json');
    writeFileSync(file, JSON.stringify({ name: 'demo', greeting: 'Hi!', start: 'a', intents: { hi: { keywords: ['hello'] } }, states: { a: { on: [{ intent: 'hi', reply: 'Hello to you.' }] } } }));
    const dialogue = loadScriptedDialogue(file);
    expect(dialogue.greeting()).toBe('Hi!');
    const outputs = await lastValueFrom(dialogue.respond({ history: [], userText: 'hello' }).pipe(toArray()));
    expect(outputs.map((o) => (o.type === 'text' ? o.delta : '')).join('')).toBe('Hello to you.');
  });

  it('the commented example in examples/scripts books a table end to end', async () => {
    const dialogue = loadScriptedDialogue('examples/scripts/booking.yaml');
    const history: Array<{ role: 'user' | 'agent'; text: string }> = [];
    const replies: string[] = [];
    let last: unknown;
    for (const userText of ['yes', 'four of us', 'tomorrow at eight', 'no', 'half past eight', 'yes please']) {
      const outputs = await lastValueFrom(dialogue.respond({ history, userText }).pipe(toArray()));
      const text = outputs.map((o) => (o.type === 'text' ? o.delta : '')).join('');
      history.push({ role: 'user', text: userText }, { role: 'agent', text });
      replies.push(text);
      last = outputs;
    }
    expect(replies[2]).toBe("That's a table for 4 tomorrow at 8 pm, seated inside. Shall I book it?");
    expect(replies[4]).toBe("That's a table for 4 tomorrow at 8:30 pm, seated inside. Shall I book it?");
    expect(last).toContainEqual({ type: 'tool-call', name: 'book_table', arguments: { party_size: 4, day: 'tomorrow', time: '8:30 pm', seating: 'inside' } });
    expect(last).toContainEqual({ type: 'end-call', reason: 'booked' });
  });
});
