import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { TurnReport } from '../../src/agent/index.js';
import { encodeMuLaw, parseWav } from '../../src/audio/index.js';
import { startAgentApp, type AgentApp } from '../../src/cli/run-agent.js';
import { MediaStreamCaller } from '../../src/transports/index.js';
import { parsePrometheus } from '../support/prometheus-text.js';
import { VirtualPhone } from '../support/virtual-phone.js';

async function get(url: string): Promise<{ status: number; type: string; body: string }> {
  const response = await fetch(url);
  return { status: response.status, type: response.headers.get('content-type') ?? '', body: await response.text() };
}

const caller = encodeMuLaw(parseWav(readFileSync(new URL('../fixtures/calls/booking-8k-ulaw.wav', import.meta.url))).samples);

describe('shoal agent at capacity', () => {
  let app: AgentApp;
  const turns: TurnReport[][] = [];
  const telephony = () => `${app.url.replace('http', 'ws')}telephony`;
  const phone = new VirtualPhone();

  beforeAll(async () => {
    app = await startAgentApp(
      { agent: 'receptionist', host: '127.0.0.1', port: 0, mode: 'low-latency', maxCalls: 1 },
      {
        clock: phone.clock,
        onCall: (call) => {
          phone.onCall(call);
          const { session } = call;
          const reports: TurnReport[] = [];
          turns.push(reports);
          session.events$.subscribe((event) => event.type === 'turn-metrics' && reports.push(event.report));
        },
      },
    );
  }, 60_000);
  afterAll(async () => app?.close());

  it('answers /healthz, /readyz and /metrics (Prometheus text) when idle', async () => {
    expect(await get(`${app.url}healthz`)).toMatchObject({ status: 200, body: '{"status":"ok"}' });
    const ready = await get(`${app.url}readyz`);
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.body)).toEqual({ ready: true, draining: false, active: 0, capacity: 1, load: 0 });
    const metrics = await get(`${app.url}metrics`);
    expect(metrics.type).toContain('text/plain');
    const samples = parsePrometheus(metrics.body);
    expect(samples.get('shoal_calls_capacity')).toBe(1);
    expect(samples.get('shoal_calls_active')).toBe(0);
    expect(samples.get('shoal_load')).toBe(0);
    expect(samples.has('process_resident_memory_bytes')).toBe(true);
  });

  it('refuses calls beyond capacity at once (busy line on the phone, "agent_busy" in the browser) while the call in progress completes its turn', async () => {
    // The counters are the process's: other apps this worker ran before may have counted calls.
    const counted = parsePrometheus((await get(`${app.url}metrics`)).body);
    const since = (samples: Map<string, number>, name: string) => (samples.get(name) ?? 0) - (counted.get(name) ?? 0);
    const first = await phone.call(app.url);
    expect(app.admission.active).toBe(1);
    const firstAnswer = caller.subarray(0, 7.5 * 8000);
    await first.play(firstAnswer.subarray(0, 3 * 8000));

    const second = await MediaStreamCaller.connect(telephony());
    await expect.poll(() => second.heard.bytes, { timeout: 5000 }).toBeGreaterThan(0);
    // At once: the busy line plays while the first caller is still speaking (3 s into its 7.5 s, on the call's clock).
    expect(first.now).toBe(3000);
    expect(await second.closed).toEqual({ code: 1000, reason: 'agent busy' });
    expect(second.heard.bytes).toBe(20_000); // three 0.5 s bursts and the two pauses between them, 8 kHz mu-law
    expect(second.marks).toEqual(['busy-line-played']);

    const page = new WebSocket(`${app.url.replace('http', 'ws')}ws`);
    const pageMessages: Array<{ type: string; code?: string; message?: string; retryAfterMs?: number }> = [];
    page.on('message', (data) => pageMessages.push(JSON.parse(String(data))));
    await new Promise((resolve) => page.once('open', resolve));
    page.send(JSON.stringify({ type: 'hello' }));
    const pageClose = await new Promise<number>((resolve) => page.once('close', resolve));
    expect(pageClose).toBe(1013);
    expect(pageMessages).toEqual([expect.objectContaining({ type: 'error', code: 'agent_busy', message: expect.stringMatching(/busy/) })]);
    expect(pageMessages[0]!.retryAfterMs).toBeGreaterThan(0);

    const busy = await get(`${app.url}readyz`);
    expect(busy.status).toBe(503);
    expect(JSON.parse(busy.body)).toMatchObject({ ready: false, active: 1, capacity: 1, load: 1 });
    expect(turns).toHaveLength(1); // no agent was started for the refused calls

    await first.play(firstAnswer.subarray(3 * 8000));
    expect(await first.waitFor(() => turns[0]!.some((t) => t.userText !== '' && t.agentText !== ''), 15_000)).toBe(true);
    const samples = parsePrometheus((await get(`${app.url}metrics`)).body);
    expect(since(samples, 'shoal_calls_accepted_total')).toBe(1);
    expect(since(samples, 'shoal_calls_refused_total')).toBe(2);
    expect(since(samples, 'shoal_turn_stage_ms_count{stage="voice_to_voice"}')).toBeGreaterThanOrEqual(1);
    expect(since(samples, 'shoal_turn_stage_ms_count{stage="asr"}')).toBeGreaterThanOrEqual(1);
    expect(since(samples, 'shoal_engine_pinned{pool="pocketsphinx"}')).toBe(1);

    await first.hangUp();
    await expect.poll(() => app.admission.active, { timeout: 5000 }).toBe(0);
    expect((await get(`${app.url}readyz`)).status).toBe(200);
  }, 60_000);

  it('drains: no new calls, readyz says draining, and drain ends when the call in progress hangs up', async () => {
    const inProgress = await MediaStreamCaller.connect(telephony());
    await expect.poll(() => app.admission.active, { timeout: 5000 }).toBe(1);
    let drained = false;
    const drain = app.drain(20_000).then(() => (drained = true));
    const ready = await get(`${app.url}readyz`);
    expect(ready.status).toBe(503);
    expect(JSON.parse(ready.body)).toMatchObject({ ready: false, draining: true });
    const late = await MediaStreamCaller.connect(telephony());
    expect((await late.closed).reason).toBe('agent busy');
    expect(drained).toBe(false);
    await inProgress.hangUp();
    await drain;
    expect(app.admission.active).toBe(0);
  }, 30_000);
});
