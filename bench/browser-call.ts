/**
 * Browser demo benchmark: a real Chromium page (fake microphone fed from a fixture call) talks to `shoal agent`
 * in this process, once per mode. Prints one JSON object: per mode, the agent's per-turn latencies as the
 * page's waterfall shows them (p50/p95), and what the page sent and played.
 * Run: npx tsx bench/browser-call.ts [--fixture=FILE.wav] [--modes=balanced]
 *   (--fixture: another caller recording, 16 kHz or more; default test/fixtures/calls/booking-16k.wav)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { percentile, type AgentMode, type TurnReport } from '../src/agent/index.js';
import { startAgentApp } from '../src/cli/run-agent.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const fixture = resolve(root, process.argv.find((a) => a.startsWith('--fixture='))?.slice('--fixture='.length) ?? 'test/fixtures/calls/booking-16k.wav');
const modes = (process.argv.find((a) => a.startsWith('--modes='))?.slice('--modes='.length).split(',') ?? ['low-latency', 'balanced']) as AgentMode[];
const callSeconds = 16;
const round = (value: number | undefined) => (value === undefined ? null : Math.round(value));

async function browserCall(mode: AgentMode) {
  const turns: TurnReport[] = [];
  const app = await startAgentApp(
    { agent: 'receptionist', host: '127.0.0.1', port: 0, mode },
    { onCall: ({ session }) => session.events$.subscribe((e) => e.type === 'turn-metrics' && e.report.userText && turns.push(e.report)) },
  );
  const profile = mkdtempSync(join(tmpdir(), 'shoal-bench-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--use-fake-ui-for-media-stream',
      '--use-fake-device-for-media-stream',
      `--use-file-for-fake-audio-capture=${fixture}%noloop`,
    ],
  });
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto(`${app.url}?raw=1&mode=${mode}`);
    await page.click('#call');
    await page.waitForSelector('body[data-call="live"]');
    await page.waitForTimeout(callSeconds * 1000);
    const stats = await page.evaluate(() => (window as unknown as { shoalStats: Record<string, number> }).shoalStats);
    const figure = (pick: (t: TurnReport) => number | undefined) => {
      const values = turns.map(pick).filter((v): v is number => v !== undefined);
      return { p50: round(percentile(values, 50)), p95: round(percentile(values, 95)) };
    };
    return {
      turns_answered: turns.length,
      caller_heard: turns.map((t) => t.userText),
      voice_to_voice_ms: figure((t) => t.metrics.voiceToVoiceMs),
      endpointing_ms: figure((t) => t.metrics.endpointingMs),
      end_of_speech_to_transcript_ms: figure((t) => t.metrics.endOfSpeechToFinalMs),
      dialogue_first_token_ms: figure((t) => t.metrics.dialogueFirstTokenMs),
      tts_first_audio_ms: figure((t) => t.metrics.ttsFirstAudioMs),
      interrupted_turns: turns.filter((t) => t.interrupted).length,
      page: {
        mic_frames_sent: stats['framesSent'],
        agent_audio_received_ms: round((stats['audioBytesReceived'] ?? 0) / 32),
        agent_audio_played_ms: round(stats['playedMs']),
        clears: stats['clears'],
        agent_caption_updates: stats['agentWordsAsPlayed'],
      },
    };
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
    await app.close();
  }
}

const result: Record<string, unknown> = { bench: 'browser-call', fixture, call_seconds: callSeconds };
for (const mode of modes) result[mode] = await browserCall(mode);
process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
