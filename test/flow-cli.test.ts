import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);

describe('a flow that does not load, on the command line', () => {
  it('names each problem with its line and exits with status 2', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'shoal-flow-cli-')), 'bad.yaml');
    writeFileSync(file, 'name: bad\nstart: a\nllm: { url: "http://127.0.0.1:9/v1" }\nstates:\n  a:\n    llm: { task: hi, tools: [nope] }\n    on_tool: { nope: { goto: b } }\n');
    const failed = await run(process.execPath, ['bin/shoal.js', 'talk', '--in', 'test/fixtures/calls/booking-16k.wav', '--script', file]).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failed?.code).toBe(2);
    expect(failed?.stderr).toBe(
      `shoal: invalid dialogue script ${file}:\n` +
        '  - states.a.llm.tools[0] (line 6): unknown tool "nope" (known tools: end_call, expect_answer)\n' +
        '  - states.a.on_tool.nope.goto (line 7): unknown state "b" (known states: a)\n',
    );
  }, 30_000);
});
