import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { peak, type AudioFrame } from '../../src/audio/index.js';
import { startAgentApp, type AgentApp } from '../../src/cli/run-agent.js';

const chromiumPath = '/usr/bin/chromium';
const root = fileURLToPath(new URL('../..', import.meta.url));
const callWav = join(root, 'test/fixtures/calls/booking-16k.wav');
const outputDir = join(root, 'test-output');
const traceparent = '00-5e1c0a7f3d2b4c6e8f9a0b1c2d3e4f50-a1b2c3d4e5f60718-01';

if (!existsSync(chromiumPath)) {
  console.warn(`browser-demo: SKIPPED — ${chromiumPath} is missing; install it with \`bash scripts/setup.sh --test\` (Debian package chromium).`);
}

describe.skipIf(!existsSync(chromiumPath))('the demo page in a real browser (Chromium, fake microphone fed from a call recording)', () => {
  let app: AgentApp;
  let context: BrowserContext;
  let page: Page;
  let profile: string;
  const serverSide = { frames: 0, samples: 0, peak: 0, traceIds: [] as string[], events: [] as string[] };

  beforeAll(async () => {
    app = await startAgentApp(
      { agent: 'receptionist', host: '127.0.0.1', port: 0, mode: 'balanced' },
      {
        onCall: ({ transport, session }) => {
          serverSide.traceIds.push(session.traceId);
          transport.audio$.subscribe((frame: AudioFrame) => {
            serverSide.frames++;
            serverSide.samples += frame.samples.length;
            serverSide.peak = Math.max(serverSide.peak, peak(frame.samples));
          });
          session.events$.subscribe((event) => serverSide.events.push(event.type));
        },
      },
    );
    profile = mkdtempSync(join(tmpdir(), 'shoal-chromium-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: chromiumPath,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--autoplay-policy=no-user-gesture-required',
        '--use-fake-ui-for-media-stream',
        '--use-fake-device-for-media-stream',
        `--use-file-for-fake-audio-capture=${callWav}%noloop`,
      ],
    });
    page = context.pages()[0] ?? (await context.newPage());
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    await app?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  it('hears the caller, answers with audio the page plays, and draws latency bars', async () => {
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') pageErrors.push(message.text());
    });
    await page.goto(`${app.url}?raw=1&traceparent=${traceparent}`);
    await expect.poll(() => page.locator('#agent option').count()).toBeGreaterThan(1);
    expect(await page.locator('#agent').inputValue()).toBe('receptionist');
    await page.click('#call');
    await page.waitForSelector('body[data-call="live"]', { timeout: 10_000 });
    expect(await page.locator('#trace').textContent()).toBe(traceparent);

    await page.waitForSelector('.caller.final', { timeout: 40_000 });
    await page.waitForSelector('.latency-bar', { timeout: 40_000 });
    await page.waitForFunction(() => (window as unknown as { shoalStats: { playedMs: number } }).shoalStats.playedMs > 1500, undefined, { timeout: 30_000 });

    const stats = await page.evaluate(() => (window as unknown as { shoalStats: Record<string, number> }).shoalStats);
    const callerLines = await page.locator('.caller.final').allTextContents();
    const agentLines = await page.locator('.agent').allTextContents();
    const bars = await page.locator('.latency-bar').count();
    const latencyRows = await page.locator('.latency-row').count();
    mkdirSync(outputDir, { recursive: true });
    await page.screenshot({ path: join(outputDir, 'browser-demo.png'), fullPage: true });

    // The fake microphone really carried the recording to the server (a wrong path would give silence).
    expect(serverSide.frames).toBeGreaterThan(50);
    expect(serverSide.peak).toBeGreaterThan(0.05);
    expect(stats.peakLevelSent).toBeGreaterThan(0.01);
    // One trace per call, taken from the page.
    expect(serverSide.traceIds).toEqual([traceparent.split('-')[1]]);
    // The caller's words came back as a final transcript, and the agent answered.
    expect(callerLines.join(' ').toLowerCase()).toMatch(/book|table|people|tonight/);
    expect(agentLines.join(' ').trim().length).toBeGreaterThan(0);
    // The agent's words were shown while its audio played, before each turn's final text.
    expect(stats.agentWordsAsPlayed).toBeGreaterThan(0);
    // Agent audio arrived and the playback worklet played it.
    expect(stats.audioBytesReceived).toBeGreaterThan(16_000 * 2);
    expect(stats.playedMs).toBeGreaterThan(1500);
    // A waterfall row per answered turn, with its stages as bars.
    expect(latencyRows).toBeGreaterThanOrEqual(1);
    expect(bars).toBeGreaterThanOrEqual(3);
    expect(pageErrors).toEqual([]);

    await page.click('#call');
    await page.waitForSelector('body[data-call="idle"]');
    await expect.poll(() => app.server.browser.activeCalls(), { timeout: 5000 }).toBe(0);
  }, 120_000);
});
