import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { peak, type AudioFrame } from '../../src/audio/index.js';
import { startAgentApp, type AgentApp } from '../../src/cli/run-agent.js';
import { firefoxInstalled, firefoxPath, launchFirefox } from '../support/firefox.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const outputDir = join(root, 'test-output');
const traceparent = '00-6f2d1b8e4c3a5d7f9e0a1b2c3d4e5f61-b2c3d4e5f6071829-01';

type PageStats = Record<string, number>;
const readStats = (page: Page) => page.evaluate(() => (window as unknown as { shoalStats: PageStats }).shoalStats);
const texts = (page: Page, selector: string) => page.$$eval(selector, (nodes) => nodes.map((node) => node.textContent ?? ''));

if (!firefoxInstalled) {
  console.warn(`browser-firefox: SKIPPED — ${firefoxPath} is missing; install it with \`bash scripts/setup.sh --test\` (Debian package firefox-esr).`);
}

describe.skipIf(!firefoxInstalled)('the demo page in a real browser (Firefox ESR over WebDriver BiDi, fake tone microphone)', () => {
  let app: AgentApp;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];
  const serverSide = { frames: 0, peak: 0, traceIds: [] as string[] };

  beforeAll(async () => {
    app = await startAgentApp(
      { agent: 'receptionist', host: '127.0.0.1', port: 0, mode: 'balanced' },
      {
        onCall: ({ transport, session }) => {
          serverSide.traceIds.push(session.traceId);
          transport.audio$.subscribe((frame: AudioFrame) => {
            serverSide.frames++;
            serverSide.peak = Math.max(serverSide.peak, peak(frame.samples));
          });
        },
      },
    );
    browser = await launchFirefox();
    page = (await browser.pages())[0] ?? (await browser.newPage());
    page.on('pageerror', (error) => pageErrors.push(String((error as Error).message ?? error)));
    page.on('console', (message) => {
      if (message.type() === 'error') pageErrors.push(message.text());
    });
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('sends the microphone to the server, plays the greeting with captions, and frees the call on stop', async () => {
    await page.goto(`${app.url}?raw=1&traceparent=${traceparent}`);
    await page.waitForFunction(() => document.querySelectorAll('#agent option').length > 1, { timeout: 10_000 });
    expect(await page.$eval('#agent', (select) => (select as HTMLSelectElement).value)).toBe('receptionist');

    await page.click('#call');
    await page.waitForSelector('body[data-call="live"]', { timeout: 15_000 }).catch(async (error: unknown) => {
      const status = await page.$eval('#status', (node) => node.textContent);
      throw new Error(`the call did not go live; page status: "${status}"; page errors: ${JSON.stringify(pageErrors)}`, { cause: error });
    });
    expect(await page.$eval('#trace', (node) => node.textContent)).toBe(traceparent);

    // Captions follow playback word by word, so the greeting's last word shows only once its audio has played.
    await page.waitForFunction(() => /help/i.test(document.querySelector('.agent')?.textContent ?? ''), { timeout: 30_000 });
    await page.waitForFunction(() => (window as unknown as { shoalStats: { playedMs: number } }).shoalStats.playedMs > 2000, { timeout: 30_000 });

    const stats = await readStats(page);
    const agentLines = await texts(page, '.agent');
    mkdirSync(outputDir, { recursive: true });
    await page.screenshot({ path: join(outputDir, 'browser-firefox.png'), fullPage: true });

    // The fake device's tone reached the server as 16 kHz frames with a real level (a broken capture path sends silence).
    expect(stats['framesSent']).toBeGreaterThan(50);
    expect(stats['peakLevelSent']).toBeGreaterThan(0.001);
    expect(serverSide.frames).toBeGreaterThan(50);
    expect(serverSide.peak).toBeGreaterThan(0.001);
    expect(serverSide.traceIds).toEqual([traceparent.split('-')[1]]);
    // The greeting arrived as audio and the playback worklet played it, with its words as captions.
    expect(stats['audioBytesReceived']).toBeGreaterThan(16_000 * 2);
    expect(stats['playedMs']).toBeGreaterThan(2000);
    expect(stats['agentWordsAsPlayed']).toBeGreaterThan(0);
    expect(agentLines.join(' ')).toMatch(/Harbour Kitchen.*help/i);
    expect(pageErrors).toEqual([]);

    await page.click('#call');
    await page.waitForSelector('body[data-call="idle"]', { timeout: 10_000 });
    await expect.poll(() => app.server.browser.activeCalls(), { timeout: 5000 }).toBe(0);
    expect(pageErrors).toEqual([]);
  }, 120_000);
});
