import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { shoalEntry } from '../support/shoal-entry.js';

const run = promisify(execFile);

describe('a flow that does not load, on the command line', () => {
  it('names each problem as FILE:LINE: path: problem, in line order, and exits with status 2', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'shoal-flow-cli-')), 'bad.yaml');
    // global_tools is checked first but written last: the lines come out in file order.
    writeFileSync(file, 'name: bad\nstart: a\nllm: { url: "http://127.0.0.1:9/v1" }\nstates:\n  a:\n    llm: { task: hi, tools: [nope] }\n    on_tool: { nope: { goto: b } }\nglobal_tools: [crm.lookup]\n');
    const failed = await run(process.execPath, [shoalEntry(), 'talk', '--in', 'test/fixtures/calls/booking-16k.wav', '--script', file]).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failed?.code).toBe(2);
    expect(failed?.stderr).toBe(
      `shoal: ${file}:6: states.a.llm.tools[0]: unknown tool "nope" (known tools: end_call, expect_answer)\n` +
        `shoal: ${file}:7: states.a.on_tool.nope.goto: unknown state "b" (known states: a)\n` +
        `shoal: ${file}:8: global_tools[0]: unknown MCP server "crm" (servers: none in mcp:)\n`,
    );
  }, 30_000);
});

describe("a scenario's flow that does not load", () => {
  it('is reported by the setup check of shoal test with the flow\'s own FILE:LINE: path: problem lines', async () => {
    const { checkScenarioSetup, loadScenarios, ScenarioSetupError } = await import('../../src/testing/index.js');
    const dir = mkdtempSync(join(tmpdir(), 'shoal-flow-suite-'));
    writeFileSync(join(dir, 'bad.yaml'), 'name: bad\nstart: a\nllm: { url: "http://127.0.0.1:9/v1" }\nstates:\n  a:\n    llm: { task: hi, goto: [b] }\n    after: { turns: 2, goto: c }\n');
    writeFileSync(join(dir, 'suite.yaml'), 'script: bad.yaml\nscenarios:\n  - name: greets\n    steps:\n      - expect: { says: "/hi/" }\n');
    const [scenario] = await loadScenarios(join(dir, 'suite.yaml'));
    const error = await checkScenarioSetup(scenario!).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(ScenarioSetupError);
    expect((error as Error).message.split('\n')).toEqual([
      `${join(dir, 'bad.yaml')}:6: states.a.llm.goto[0]: unknown state "b" (known states: a)`,
      `${join(dir, 'bad.yaml')}:7: states.a.after.goto: unknown state "c" (known states: a)`,
    ]);
  });
});
