/** The /calls page in real browsers: the list, a filter, a call's timeline, and a turn seeking the recording. */
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, firefox, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteCallStore } from '../src/agent/index.js';
import { callRecordsApi } from '../src/cli/call-records.js';
import { buildDemoPage, demoPageHandler } from '../src/transports/browser/demo-page.js';
import { virtualCall } from './agent-virtual-call.js';

const browsers = [
  { name: 'Chromium', type: chromium, path: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--autoplay-policy=no-user-gesture-required'] },
  { name: 'Firefox', type: firefox, path: '/usr/bin/firefox', args: [] },
];

let server: Server;
let url: string;
let store: SqliteCallStore;

beforeAll(async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'shoal-calls-page-'));
  store = new SqliteCallStore(dataDir);
  const recordings = join(dataDir, 'recordings');
  await virtualCall({ records: { store, recordingsDir: recordings, flushEveryMs: 10 } });
  await store.begin({ id: 'other', traceId: 't2', agent: 'desk', mode: 'balanced', transport: { kind: 'phone', carrier: 'twilio', from: '+15550001' }, startedAt: new Date(Date.now() - 60_000).toISOString() });
  await store.append('other', [{ kind: 'turn', atMs: 900, turn: 1, userText: 'book a table', agentText: 'For how many?', interrupted: false, metrics: { interrupted: false, voiceToVoiceMs: 700 } }]);
  await new Promise((resolve) => setTimeout(resolve, 300));
  const page = demoPageHandler(await buildDemoPage(), { default: 'fixed', agents: [] });
  const api = callRecordsApi(store, 'secret', recordings);
  server = createServer((request, response) => api(request, response) || page(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}, 60_000);

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await store?.close();
});

describe.each(browsers)('the calls page in $name', ({ name, type, path, args }) => {
  let browser: Browser | undefined;
  let launchError: unknown;
  beforeAll(async () => {
    if (!existsSync(path)) return;
    browser = await type.launch({ executablePath: path, headless: true, args, timeout: 10_000 }).catch((error: unknown) => {
      launchError = error;
      return undefined;
    });
    if (launchError) console.warn(`calls-page: ${name} could not be driven by playwright-core: ${(launchError as Error).message.split('\n')[0]}`);
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
  });

  it('lists the calls, filters them, shows a call as a timeline and seeks the recording to a clicked turn', async (context) => {
    if (!browser) return context.skip();
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${url}/calls#token=secret`);
    const rows = page.locator('#calls tbody tr');
    await expect.poll(() => rows.count()).toBe(2);
    expect(page.url()).not.toContain('secret');

    await page.fill('#q', 'table');
    await page.click('#filters button[type=submit]');
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain('+15550001');
    await page.fill('#q', '');
    await page.click('#filters button[type=submit]');
    await expect.poll(() => rows.count()).toBe(2);

    // The recorded call: the older one is 'other', so the first row is the virtual call.
    await rows.first().click();
    const turns = page.locator('#timeline li.turn');
    await expect.poll(() => turns.count()).toBeGreaterThanOrEqual(2);
    expect(await turns.nth(1).locator('.caller').textContent()).toBeTruthy();
    expect(await turns.nth(1).locator('.bars span').count()).toBeGreaterThan(0);
    await page.waitForFunction(() => (document.getElementById('audio') as HTMLAudioElement).readyState >= 1, undefined, { timeout: 10_000 });
    const duration = await page.evaluate(() => (document.getElementById('audio') as HTMLAudioElement).duration);
    expect(duration).toBeGreaterThan(5);
    const at = Number(await turns.nth(2).getAttribute('data-at')) / 1000;
    expect(at).toBeGreaterThan(3);
    await turns.nth(2).click();
    await expect.poll(() => page.evaluate(() => (document.getElementById('audio') as HTMLAudioElement).currentTime)).toBeGreaterThanOrEqual(at - 0.05);
    expect(await page.evaluate(() => (document.getElementById('audio') as HTMLAudioElement).currentTime)).toBeLessThan(at + 1.5);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);
});
