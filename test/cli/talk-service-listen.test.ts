/**
 * `shoal talk --service-url` against a speech service with the live recognition socket: the recorded caller is
 * recognised over `/v1/listen` (no `/v1/asr` request); against one without it (404), talk says so on stderr and
 * sends each utterance to `/v1/asr`. A counting proxy in front of the service sees which.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeWav, parseWav } from '../../src/audio/index.js';
import { startEmbeddedService, type EmbeddedService } from '../../src/service/index.js';
import { startCountingProxy } from '../support/counting-proxy.js';
import { shoalEntry } from '../support/shoal-entry.js';

const run = promisify(execFile);
const script = fileURLToPath(new URL('../../examples/scripts/parcel-line.yaml', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'shoal-talk-listen-'));
// The parcel line's first answer: line noise, "four one nine two" (a real recording), then quiet.
const caller = join(dir, 'first-answer.wav');
const parcel = parseWav(readFileSync(new URL('../fixtures/human-calls/parcel-8k-ulaw.wav', import.meta.url)));
writeFileSync(caller, encodeWav(parcel.samples.subarray(0, 8000 * 11), 8000));

let service: EmbeddedService;
beforeAll(async () => {
  service = await startEmbeddedService();
}, 60_000);
afterAll(async () => {
  await service?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function talkBehind(refuseListen: boolean) {
  const proxy = await startCountingProxy(service.url, refuseListen ? { refuseUpgrades: ['/v1/listen'] } : {});
  try {
    const { stdout, stderr } = await run(
      'node',
      [shoalEntry(), 'talk', '--in', caller, '--script', script, '--service-url', proxy.url, '--json', '--fast', '--no-call-records', '--data-dir', join(dir, 'records')],
      { timeout: 60_000, env: { ...process.env, SHOAL_API_KEY: service.apiKey } },
    );
    const turns = stdout.trim().split('\n').map((line) => JSON.parse(line) as { user_text: string; agent_text: string });
    return { turns, stderr, count: (what: string) => proxy.count(what) };
  } finally {
    await proxy.close();
  }
}

describe('shoal talk --service-url', () => {
  it("recognises the caller over the service's /v1/listen socket and sends nothing to /v1/asr", async () => {
    const talk = await talkBehind(false);
    const answer = talk.turns.find((turn) => turn.user_text);
    expect(answer).toMatchObject({ user_text: 'four one nine two' });
    expect(answer!.agent_text).toMatch(/4192/);
    // The start-up probe and the call's socket.
    expect(talk.count('GET /v1/listen (upgrade)')).toBeGreaterThanOrEqual(2);
    expect(talk.count('POST /v1/asr')).toBe(0);
    expect(talk.stderr).not.toMatch(/no live recognition socket/);
  }, 60_000);

  it('keeps /v1/asr per utterance against a service without /v1/listen, and says why on stderr', async () => {
    const talk = await talkBehind(true);
    expect(talk.turns.find((turn) => turn.user_text)?.user_text).toMatch(/four one nine two/);
    expect(talk.count('POST /v1/asr')).toBeGreaterThanOrEqual(1);
    expect(talk.count('GET /v1/listen (upgrade)')).toBe(1);
    expect(talk.stderr).toContain('has no live recognition socket (/v1/listen: HTTP 404); each utterance is sent to /v1/asr');
  }, 60_000);
});
