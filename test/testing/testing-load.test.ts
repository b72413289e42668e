import { mkdtemp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lastValueFrom, toArray } from 'rxjs';
import { defineScenario, loadScenarios, parseScenarios, ScenarioFileError, scenarioDialogue } from '../../src/testing/index.js';
import { FakeOpenAiServer, says } from '../support/fake-openai-server.js';
import { scenarioSchemaFile, scenarioSchemaText } from '../../src/testing/schema-file.js';

function errorOf(text: string, file = 'suite.yaml'): ScenarioFileError {
  try {
    parseScenarios(text, file);
  } catch (error) {
    if (error instanceof ScenarioFileError) return error;
    throw error;
  }
  throw new Error('the file was accepted');
}

const good = `agent: receptionist
mode: low-latency
line: phone
conditions: { noise_db: 20, loss: 0.02, jitter_ms: 30, seed: 7 }
caller: { voice: slt }
scenarios:
  - name: gives the hours
    steps:
      - expect: { says: "/harbour/i" }
      - say: when are you open
        expect: { says: noon, within_ms: 1500 }
      - dtmf: "12#"
      - silence_ms: 3000
  - name: on the wideband line
    line: wideband
    script: flows/ivr.yaml
    conditions: { seed: 9 }
    steps:
      - play: clips/yes.wav
        interrupt_after_ms: 500
        expect: { interrupted: true, action: { type: transfer, to: front desk } }
    expect: { turns: { min: 2 }, ends_with: transfer, one_trace: true }
`;

describe('scenario files', () => {
  it('merge the file settings into each scenario, a scenario overriding them', () => {
    const [first, second] = parseScenarios(good, '/suites/booking.yaml');
    expect(first).toMatchObject({ name: 'gives the hours', file: '/suites/booking.yaml', dir: '/suites', agent: 'receptionist', mode: 'low-latency', line: 'phone' });
    expect(first!.conditions).toEqual({ noise_db: 20, loss: 0.02, jitter_ms: 30, seed: 7 });
    expect(first!.caller.voice).toBe('slt');
    expect(first!.steps).toHaveLength(4);
    expect(second).toMatchObject({ line: 'wideband', script: 'flows/ivr.yaml', conditions: { noise_db: 20, seed: 9 } });
    expect(second!.agent).toBeUndefined();
    expect(second!.expect).toEqual({ turns: { min: 2 }, ends_with: 'transfer', one_trace: true });
  });

  it('read JSON as well', () => {
    const [scenario] = parseScenarios(JSON.stringify({ agent: 'echo', scenarios: [{ name: 'x', steps: [{ say: 'hi', expect: { says: 'hi' } }] }] }), 'x.json');
    expect(scenario).toMatchObject({ name: 'x', agent: 'echo', line: 'phone', mode: 'balanced' });
  });

  it('name the line and key of an unknown key', () => {
    const error = errorOf(good.replace('expect: { says: noon, within_ms: 1500 }', 'expect: { sayz: noon }'));
    expect(error.file).toBe('suite.yaml');
    expect(error.line).toBe(11);
    expect(error.key).toBe('scenarios[0].steps[1].expect.sayz');
    expect(error.message).toBe('suite.yaml:11: scenarios[0].steps[1].expect.sayz: unknown key (see schemas/scenario.schema.json)');
  });

  it('name the line and key of a value of the wrong kind', () => {
    const error = errorOf(good.replace('within_ms: 1500', 'within_ms: soon'));
    expect([error.line, error.key]).toEqual([11, 'scenarios[0].steps[1].expect.within_ms']);
    expect(error.problem).toMatch(/number/);
    expect(errorOf(good.replace('line: wideband', 'line: dialup'))).toMatchObject({ line: 15, key: 'scenarios[1].line' });
    expect(errorOf(good.replace('dtmf: "12#"', 'dtmf: "12x"'))).toMatchObject({ line: 12, key: 'scenarios[0].steps[2].dtmf' });
  });

  it('refuse steps that do two things, barge-in without speech, and two agents', () => {
    expect(errorOf(good.replace('- silence_ms: 3000', '- { silence_ms: 3000, say: hi }'))).toMatchObject({ line: 13, problem: expect.stringMatching(/one thing/) });
    expect(errorOf(good.replace('- silence_ms: 3000', '- { silence_ms: 3000, interrupt_after_ms: 5 }'))).toMatchObject({ key: 'scenarios[0].steps[3].interrupt_after_ms' });
    expect(errorOf(good.replace('agent: receptionist', 'agent: receptionist\nscript: ivr.yaml'))).toMatchObject({ line: 2, key: 'script' });
    expect(errorOf(good.replace('      - silence_ms: 3000\n', '      - {}\n'))).toMatchObject({ line: 13, problem: expect.stringMatching(/needs say/) });
  });

  it('give the line of a YAML syntax error and of a missing key', () => {
    expect(errorOf('scenarios:\n  - name: a\n    steps: [\n')).toMatchObject({ file: 'suite.yaml', line: 4 });
    expect(errorOf('agent: echo\nscenarios:\n  - steps:\n      - say: hi\n')).toMatchObject({ line: 3, key: 'scenarios[0].name' });
    expect(errorOf('agent: echo\n')).toMatchObject({ key: 'scenarios' });
    expect(errorOf('- just\n- a list\n')).toMatchObject({ line: 1 });
  });

  it('report every mistake of a file, each with its line and key, in line order', () => {
    const mistaken = good
      .replace('expect: { says: noon, within_ms: 1500 }', 'expect: { sayz: noon, within_ms: soon }')
      .replace('line: wideband', 'line: dialup')
      .replace('expect: { says: "/harbour/i" }', 'expect: { says: "/harbour(/i" }');
    const error = errorOf(mistaken);
    expect(error.message.split('\n')).toEqual([
      'suite.yaml:9: scenarios[0].steps[0].expect.says: not a valid regular expression: Invalid regular expression: /harbour(/i: Unterminated group',
      'suite.yaml:11: scenarios[0].steps[1].expect.within_ms: Invalid input: expected number, received string',
      'suite.yaml:11: scenarios[0].steps[1].expect.sayz: unknown key (see schemas/scenario.schema.json)',
      'suite.yaml:15: scenarios[1].line: Invalid option: expected one of "phone"|"wideband"|"browser"',
    ]);
    expect([error.line, error.key]).toEqual([9, 'scenarios[0].steps[0].expect.says']);
    expect(() => defineScenario({ name: 'bad regex', steps: [{ say: 'hi', expect: { heard: '/[a-/' } }] })).toThrow(/steps\[0\]\.expect\.heard: not a valid regular expression/);
  });

  it('name the scenario, line and key of a play: or llm.instructions file that cannot be read, before anything runs', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'shoal-scenarios-'));
    await writeFile(join(dir, 'prompt.txt'), 'You take bookings.');
    const file = join(dir, 'suite.yaml');
    await writeFile(
      file,
      `llm: { url: "http://127.0.0.1:9/v1", instructions: prompt.txt }
scenarios:
  - name: greets
    steps:
      - expect: { says: hello }
  - name: plays a missing clip
    steps:
      - say: hi
      - play: clips/yes.wav
  - name: has its own prompt
    llm: { url: "http://127.0.0.1:9/v1", instructions: missing-prompt.txt }
    steps:
      - say: hi
`,
    );
    const error = (await loadScenarios(file).catch((caught: unknown) => caught)) as ScenarioFileError;
    expect(error).toBeInstanceOf(ScenarioFileError);
    expect(error.message.split('\n')).toEqual([
      `${file}:9: scenarios[1].steps[1].play: no such file: ${join(dir, 'clips/yes.wav')} (scenario "plays a missing clip")`,
      `${file}:11: scenarios[2].llm.instructions: no such file: ${join(dir, 'missing-prompt.txt')} (scenario "has its own prompt")`,
    ]);
  });

  it('take a simulated caller instead of steps, merged from file and scenario, and name the line of what it lacks', () => {
    const simulated = `agent: receptionist
caller: { voice: slt, llm: { url: "http://127.0.0.1:9/v1", model: caller } }
scenarios:
  - name: asks the hours
    caller: { persona: a local, goal: learn the hours, max_turns: 3 }
    expect: { goal: reached, says: noon, tool: { name: book_table } }
  - name: no goal
    caller: { persona: a local }
  - name: nothing at all
    expect: { turns: 1 }
`;
    const error = errorOf(simulated);
    expect(error.message.split('\n')).toEqual([
      'suite.yaml:8: scenarios[1].caller: a simulated caller needs goal (it has persona)',
      'suite.yaml:9: scenarios[2]: a scenario needs steps, or a simulated caller (caller: { persona, goal, llm })',
    ]);
    const [scenario] = parseScenarios(simulated.slice(0, simulated.indexOf('  - name: no goal')), 'suite.yaml');
    expect(scenario!.caller).toEqual({ voice: 'slt', gapMs: 400, simulated: { persona: 'a local', goal: 'learn the hours', llm: { url: 'http://127.0.0.1:9/v1', model: 'caller' }, maxTurns: 3 } });
    expect(scenario!.steps).toEqual([]);
    expect(errorOf(simulated.replace(', llm: { url: "http://127.0.0.1:9/v1", model: caller }', ''))).toMatchObject({ line: 5, problem: 'a simulated caller needs llm: { url, model }' });
    expect(errorOf(simulated.replace('max_turns: 3', 'max_turns: 0'))).toMatchObject({ line: 5, key: 'scenarios[0].caller.max_turns' });
    expect(errorOf(simulated.replace('goal: reached', 'goal: sort of'))).toMatchObject({ line: 6, key: 'scenarios[0].expect.goal' });
  });

  it('load the scenario files of a directory, skipping other YAML (scripts)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'shoal-scenarios-'));
    await mkdir(join(dir, 'nested'));
    await mkdir(join(dir, 'clips'));
    await writeFile(join(dir, 'clips', 'yes.wav'), '');
    await writeFile(join(dir, 'a.yaml'), good);
    await writeFile(join(dir, 'nested', 'b.json'), JSON.stringify({ agent: 'echo', scenarios: [{ name: 'b', steps: [{ say: 'hi' }] }] }));
    await writeFile(join(dir, 'script.yaml'), 'name: ivr\nstart: a\nstates: {}\n');
    await writeFile(join(dir, 'notes.txt'), 'scenarios: nope');
    const scenarios = await loadScenarios(dir);
    expect(scenarios.map((scenario) => scenario.name)).toEqual(['gives the hours', 'on the wideband line', 'b']);
    await expect(loadScenarios(join(dir, 'missing.yaml'))).rejects.toMatchObject({ name: 'ScenarioFileError', problem: 'no such file or directory' });
  });

  it('are described by the committed JSON Schema (regenerate: npx tsx scripts/write-scenario-schema.ts)', async () => {
    expect(await readFile(scenarioSchemaFile, 'utf8')).toBe(scenarioSchemaText());
    const schema = JSON.parse(scenarioSchemaText()) as { properties: Record<string, unknown>; required: string[] };
    expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(['agent', 'script', 'llm', 'mode', 'line', 'conditions', 'caller', 'scenarios']));
    expect(schema.required).toEqual(['scenarios']);
  });

  it('can be written in code', () => {
    const scenario = defineScenario({ name: 'in code', agent: 'echo', steps: [{ say: 'hello', expect: { says: 'hello' } }] });
    expect(scenario).toMatchObject({ name: 'in code', agent: 'echo', line: 'phone' });
    expect(() => defineScenario({ name: 'bad', steps: [{ say: 'hi', expect: { within_ms: -1 } }] })).toThrow(/steps\[0\]\.expect\.within_ms/);
  });
});

describe('Pipecat Evals scripted files', () => {
  const pipecat = `name: booking_flow
turns:
  - expect:
      - event: response
        text_contains: "Harbour"
  - user: "I would like to book a table"
    expect:
      - event: user_transcription
        text_contains: "table"
      - event: response
        text_contains: "how many"
        within_ms: 2000
      - event: response
        text_contains: "goodbye"
        absent: true
      - event: function_call
        name: transfer_call
        absent: true
  - dtmf: "42#"
    expect:
      - event: function_call
        function_name: lookup
        args: { code: "42" }
      - event: response
        eval: "the agent confirms the code"
`;

  it('become a scenario whose steps say, press and check what the turns expected', () => {
    const [scenario] = parseScenarios(pipecat, '/evals/booking.yaml');
    expect(scenario).toMatchObject({ name: 'booking_flow', file: '/evals/booking.yaml', line: 'phone' });
    expect(scenario!.steps).toEqual([
      { expect: { says: 'Harbour' } },
      { say: 'I would like to book a table', expect: { heard: 'table', says: 'how many', within_ms: 2000, not_says: 'goodbye', not_tool: 'transfer_call' } },
      { dtmf: '42#', expect: { tool: { name: 'lookup', args: { code: '42' } }, judge: 'the agent confirms the code' } },
    ]);
  });

  it('name the line of what Shoal cannot read in them', () => {
    expect(errorOf(pipecat.replace('event: user_transcription', 'event: bot_blinked'), 'evals.yaml')).toMatchObject({ line: 8, key: 'turns[1].expect[0].event' });
  });
});

describe('the agent of a scenario that names none', () => {
  it('is the LLM agent of --llm-url (model, key, instructions), and a missing instructions file names the key', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'shoal-llm-url-'));
    await writeFile(join(dir, 'prompt.txt'), 'You answer questions about parcels.');
    const [scenario] = parseScenarios('name: pipecat_greeting\nturns:\n  - user: hello\n', join(dir, 'evals.yaml'));
    const server = await new FakeOpenAiServer().start();
    try {
      server.handlers.push(says('Hello there.'));
      const dialogue = await scenarioDialogue(scenario!, {}, { llm: { url: server.baseUrl, model: 'parcel-model', key: 'sk-test', instructions: join(dir, 'prompt.txt') } });
      await lastValueFrom(dialogue.respond({ history: [], userText: 'hello' }).pipe(toArray()));
      expect(server.seen[0]!.body.model).toBe('parcel-model');
      expect(server.seen[0]!.headers['authorization']).toBe('Bearer sk-test');
      expect(server.seen[0]!.body.messages![0]).toMatchObject({ role: 'system', content: expect.stringContaining('You answer questions about parcels.') });
    } finally {
      await server.close();
    }
    await expect(scenarioDialogue(scenario!, {}, { llm: { url: 'http://127.0.0.1:9/v1', instructions: join(dir, 'missing.txt') } })).rejects.toThrow(
      `${join(dir, 'evals.yaml')}: llm.instructions: cannot read ${join(dir, 'missing.txt')} (ENOENT)`,
    );
  });
});
