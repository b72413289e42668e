/** The /calls page in real browsers: the list, a filter, a call's timeline, and a turn seeking the recording. */
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteCallStore } from '../../src/agent/index.js';
import { callRecordsApi } from '../../src/cli/call-records.js';
import { buildDemoPage, demoPageHandler } from '../../src/transports/browser/demo-page.js';
import { virtualCall } from '../support/agent-virtual-call.js';
import { firefoxInstalled, launchFirefox } from '../support/firefox.js';

/** The same steps in both: puppeteer-core drives Chromium over CDP and Firefox ESR over WebDriver BiDi. */
const chromiumPath = '/usr/bin/chromium';
const browsers = [
  {
    name: 'Chromium',
    installed: existsSync(chromiumPath),
    launch: () => puppeteer.launch({ executablePath: chromiumPath, headless: true, args: ['--no-sandbox', '--disable-gpu', '--autoplay-policy=no-user-gesture-required'], timeout: 30_000 }),
  },
  { name: 'Firefox', installed: firefoxInstalled, launch: launchFirefox },
];

const count = (page: Page, selector: string) => page.$$eval(selector, (nodes) => nodes.length);
const audio = (page: Page) => page.$eval('#audio', (node) => ({ readyState: (node as HTMLAudioElement).readyState, duration: (node as HTMLAudioElement).duration, currentTime: (node as HTMLAudioElement).currentTime }));

let server: Server;
let url: string;
let store: SqliteCallStore;

beforeAll(async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'shoal-calls-page-'));
  store = new SqliteCallStore(dataDir);
  const recordings = join(dataDir, 'recordings');
  await virtualCall({ records: { store, recordingsDir: recordings, flushEveryMs: 10 } });
  await store.begin({ id: 'other', traceId: 't2', agent: 'desk', mode: 'balanced', transport: { kind: 'phone', carrier: 'twilio', from: '+15550001' }, startedAt: new Date(Date.now() - 60_000).toISOString() });
  await store.append('other', [{ kind: 'turn', atMs: 900, turn: 1, userText: 'book a table', agentText: 'For how many?', interrupted: false, metrics: { interrupted: false, voiceToVoiceMs: 700, sttCharge: 0.5, ttsCharge: 0.25 } }]);
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

describe.each(browsers)('the calls page in $name', ({ name, installed, launch }) => {
  let browser: Browser | undefined;
  beforeAll(async () => {
    if (installed) browser = await launch();
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
  });

  it.skipIf(!installed)('lists the calls, filters them, shows a call as a timeline and seeks the recording to a clicked turn', async () => {
    const page = await browser!.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(`${name}: ${String((error as Error).message ?? error)}`));
    await page.goto(`${url}/calls#token=secret`);
    await expect.poll(() => count(page, '#calls tbody tr')).toBe(2);
    expect(page.url()).not.toContain('secret');

    const search = async (text: string) => {
      await page.$eval('#q', (input, value) => ((input as HTMLInputElement).value = value), text);
      await page.click('#filters button[type=submit]');
    };
    await search('table');
    await expect.poll(() => count(page, '#calls tbody tr')).toBe(1);
    expect(await page.$eval('#calls tbody tr', (row) => row.textContent)).toContain('+15550001');
    await search('');
    await expect.poll(() => count(page, '#calls tbody tr')).toBe(2);

    // The recorded call: the older one is 'other', so the first row is the virtual call.
    await page.click('#calls tbody tr');
    await expect.poll(() => count(page, '#timeline li.turn')).toBeGreaterThanOrEqual(2);
    const second = await page.$$eval('#timeline li.turn', (turns) => ({ caller: turns[1]!.querySelector('.caller')?.textContent ?? '', bars: turns[1]!.querySelectorAll('.bars span').length }));
    expect(second.caller).toBeTruthy();
    expect(second.bars).toBeGreaterThan(0);
    await expect.poll(() => audio(page).then((state) => state.readyState), { timeout: 10_000 }).toBeGreaterThanOrEqual(1);
    expect((await audio(page)).duration).toBeGreaterThan(5);
    const at = Number(await page.$$eval('#timeline li.turn', (turns) => turns[2]!.getAttribute('data-at'))) / 1000;
    expect(at).toBeGreaterThan(3);
    await page.$$eval('#timeline li.turn', (turns) => (turns[2] as HTMLElement).click());
    await expect.poll(() => audio(page).then((state) => state.currentTime)).toBeGreaterThanOrEqual(at - 0.05);
    expect((await audio(page)).currentTime).toBeLessThan(at + 1.5);
    // The turn being played is marked as the recording plays.
    const playing = () => page.$$eval('#timeline li.turn', (turns) => turns.findIndex((turn) => turn.classList.contains('playing')));
    await expect.poll(playing, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
    const facts = () => page.$eval('#call-facts', (node) => node.textContent ?? '');
    expect(await facts()).toContain('no charge reported');
    // The other call's turn reports what the speech service billed: the call's charge is their sum.
    await page.$$eval('#calls tbody tr', (rows) => (rows[1] as HTMLElement).click());
    await expect.poll(facts).toContain('speech service charge 0.75 credits');
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);
});
