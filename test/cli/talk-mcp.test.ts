/** `shoal talk --mcp` from outside: when the call is over the MCP server is stopped and the process exits. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeWav } from '../../src/audio/index.js';
import { FakeOpenAiServer } from '../support/fake-openai-server.js';
import { alive, shoal } from '../support/shoal-process.js';

const model = new FakeOpenAiServer();
beforeAll(() => model.start());
afterAll(() => model.close());

describe('shoal talk with an MCP server', () => {
  it('stops the --mcp server when the call is over, and exits', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shoal-mcp-talk-'));
    const mcp = `bank=env BANK_PID_FILE=${join(dir, 'talk.pid')} ${process.execPath} --import tsx ${resolve('test/support/mcp-bank-server.ts')}`;
    writeFileSync(join(dir, 'quiet.wav'), encodeWav(new Int16Array(16_000), 16_000)); // a second of silence: the greeting only
    const run = await shoal(['talk', '--in', join(dir, 'quiet.wav'), '--fast', '--llm-url', model.baseUrl, '--mcp', mcp], /call ended/, 10_000);
    expect(run.stdout).toMatch(/call ended/);
    expect(run.code).toBe(0);
    expect(run.exitAfterSummaryMs).toBeLessThan(10_000);
    expect(alive(Number(readFileSync(join(dir, 'talk.pid'), 'utf8')))).toBe(false);
  }, 120_000);
});
