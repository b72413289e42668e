/**
 * `shoal agent --service-url`: recognition and synthesis both go to the speech service (a stand-in that answers
 * every recognition with a known sentence), pocketsphinx is not loaded, and `--asr local` brings it back.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callCpuMsPerSecond, defaultMaxCalls, type TurnReport } from '../../src/agent/index.js';
import { encodeMuLaw, parseWav } from '../../src/audio/index.js';
import { startAgentApp, type AgentApp } from '../../src/cli/run-agent.js';
import { asrChoice, describeSpeech } from '../../src/cli/speech-engines.js';
import { startHostedDouble, type HostedDouble } from '../support/hosted-service-double.js';
import { parsePrometheus } from '../support/prometheus-text.js';
import { VirtualPhone } from '../support/virtual-phone.js';
import { shoalEntry } from '../support/shoal-entry.js';

const script = fileURLToPath(new URL('../../examples/scripts/parcel-line.yaml', import.meta.url));
/** Nothing in the recording sounds like this: only the service can have heard it. */
const serviceText = 'seven three seven three';

describe('shoal agent --service-url: hosted means hosted', () => {
  let service: HostedDouble;
  let app: AgentApp;
  const turns: TurnReport[] = [];
  const phone = new VirtualPhone();

  beforeAll(async () => {
    service = await startHostedDouble({ text: serviceText, paced: false });
    app = await startAgentApp(
      { agent: 'receptionist', script, host: '127.0.0.1', port: 0, mode: 'balanced', serviceUrl: service.url, apiKey: 'hosted-key' },
      {
        clock: phone.clock,
        onCall: (call) => {
          phone.onCall(call);
          call.session.events$.subscribe((event) => event.type === 'turn-metrics' && turns.push(event.report));
        },
      },
    );
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await service?.close();
  });

  it('recognises a phone caller on the service, with the call\'s expectations as hints, and speaks through it', async () => {
    // The parcel line's first answer: 6 s of line noise, "four one nine two", then quiet.
    const call = encodeMuLaw(parseWav(readFileSync(new URL('../fixtures/human-calls/parcel-8k-ulaw.wav', import.meta.url))).samples);
    const caller = await phone.call(app.url);
    await caller.play(call.subarray(0, 8000 * 11));
    expect(await caller.waitFor(() => turns.some((turn) => turn.userText), 10_000)).toBe(true);
    await caller.hangUp();

    const answered = turns.find((turn) => turn.userText)!;
    expect(answered.userText).toBe(serviceText);
    expect(answered.agentText).toMatch(/7373/);
    const asr = service.requests.asr.at(-1)!;
    expect(asr.authorization).toBe('Bearer hosted-key');
    expect(asr.language).toBe('en');
    // The code state expects four digits: the service is told so.
    expect(JSON.stringify(asr.hints)).toMatch(/digits/);
    expect(service.requests.liveSockets).toBeGreaterThanOrEqual(1);
    // A phone line plays 8 kHz: synthesis is asked for it, so the agent converts nothing.
    expect(service.requests.liveRates.length).toBeGreaterThanOrEqual(1);
    expect(new Set(service.requests.liveRates)).toEqual(new Set([8000]));
    expect(service.requests.audioMs).toBeGreaterThan(1000);
    expect(caller.heard.bytes).toBeGreaterThan(8000);
  }, 40_000);

  it('takes the hosted engines\' default capacity and says on /metrics what a call costs there', async () => {
    expect(app.admission.capacity).toBe(defaultMaxCalls('hosted'));
    const samples = parsePrometheus(await (await fetch(`${app.url}metrics`)).text());
    expect(samples.get('shoal_call_cpu_ms_per_second{engines="hosted"}')).toBe(callCpuMsPerSecond.hosted);
    expect(samples.get('shoal_calls_capacity')).toBe(defaultMaxCalls('hosted'));
  });

  it('does not load pocketsphinx', () => {
    expect(readFileSync('/proc/self/maps', 'utf8')).not.toMatch(/pocketsphinx/);
  });
});

describe('--asr: where recognition runs', () => {
  it('defaults to the service with --service-url and to local without; an explicit choice wins', () => {
    expect(asrChoice({ serviceUrl: 'https://api.example' })).toBe('service');
    expect(asrChoice({})).toBe('local');
    expect(asrChoice({ serviceUrl: 'https://api.example', asr: 'local' })).toBe('local');
    expect(asrChoice({ asr: 'service' })).toBe('service');
  });

  const shoal = shoalEntry();
  /** Starts `shoal agent` with `args`, returns its start-up lines and whether its process mapped pocketsphinx. */
  async function startUp(args: string[]): Promise<{ lines: string; pocketsphinx: boolean }> {
    const child = spawn(process.execPath, [shoal, 'agent', '--port', '0', '--log-level', 'warn', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, SHOAL_API_KEY: 'hosted-key' } });
    let output = '';
    child.stdout.on('data', (data: Buffer) => (output += String(data)));
    child.stderr.on('data', (data: Buffer) => (output += String(data)));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      const started = await expect.poll(() => output, { timeout: 45_000, interval: 100 }).toMatch(/Speech: .*\n/).then(() => true, () => false);
      if (!started) throw new Error(`no start-up line within 45 s from shoal agent ${args.join(' ')}; it printed:\n${output}`);
      return { lines: output, pocketsphinx: readFileSync(`/proc/${child.pid}/maps`, 'utf8').includes('pocketsphinx') };
    } finally {
      child.kill('SIGTERM');
      // A process that does not stop on SIGTERM fails the test with what it printed, instead of hanging it.
      const stopped = await Promise.race([exited.then(() => true), new Promise((resolve) => setTimeout(() => resolve(false), 15_000))]);
      if (!stopped) {
        child.kill('SIGKILL');
        throw new Error(`shoal agent ${args.join(' ')} did not exit within 15 s of SIGTERM; it printed:\n${output}`);
      }
    }
  }

  it('says in the start-up line where recognition runs; the hosted choice never loads pocketsphinx', async () => {
    const service = await startHostedDouble();
    try {
      const hosted = await startUp(['--service-url', service.url]);
      expect(hosted.lines).toContain(describeSpeech('service', service.url));
      expect(hosted.lines).toContain(`recognition by the speech service at ${service.url} (/v1/asr)`);
      expect(hosted.pocketsphinx).toBe(false);
      expect(hosted.lines).toContain(`up to ${defaultMaxCalls('hosted')} calls at once`);
      const local = await startUp(['--service-url', service.url, '--asr', 'local']);
      expect(local.lines).toContain('recognition by local pocketsphinx in this process');
      expect(local.lines).toContain(`up to ${defaultMaxCalls('embedded')} calls at once`);
      expect(local.pocketsphinx).toBe(true);
    } finally {
      await service.close();
    }
  }, 100_000);
});
