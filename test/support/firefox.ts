import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';

/** Debian's Firefox ESR; playwright-core cannot drive it (it lacks Juggler), puppeteer-core can over WebDriver BiDi. */
export const firefoxPath = '/usr/bin/firefox-esr';
export const firefoxInstalled = existsSync(firefoxPath);

/**
 * Firefox's fake microphone (a steady tone), no permission prompt, autoplay allowed, and no network beyond loopback.
 * Without a sound server (no PulseAudio here) Firefox keeps every AudioContext `suspended`: its fallback clock runs the
 * graph but `resume()` never settles. Firefox's own mock audio backend stands in for the sound card and runs in real time.
 */
const firefoxPrefs: Record<string, unknown> = {
  'media.cubeb.force_mock_context': true,
  'media.navigator.streams.fake': true,
  'media.navigator.permission.disabled': true,
  'media.autoplay.default': 0,
  'media.autoplay.block-webaudio': false,
  'media.autoplay.blocking_policy': 0,
  'network.proxy.type': 0,
  'network.captive-portal-service.enabled': false,
  'network.connectivity-service.enabled': false,
  'browser.safebrowsing.update.enabled': false,
  'app.update.disabledForTesting': true,
  'datareporting.policy.dataSubmissionEnabled': false,
  'toolkit.telemetry.reportingpolicy.firstRun': false,
};

/** Headless Firefox ESR on a throwaway profile, removed when the browser closes. */
export async function launchFirefox(): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'shoal-firefox-'));
  const browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath: firefoxPath,
    headless: true,
    userDataDir: profile,
    extraPrefsFirefox: firefoxPrefs,
    timeout: 60_000,
  });
  browser.once('disconnected', () => rmSync(profile, { recursive: true, force: true }));
  return browser;
}
