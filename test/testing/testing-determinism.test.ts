import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadScenarios, ScenarioRunner, type Scenario, type ScenarioResult } from '../../src/testing/index.js';

let runner: ScenarioRunner;
let phone: Scenario;
beforeAll(async () => {
  runner = await ScenarioRunner.open();
  [phone] = await loadScenarios('test/scenarios/parcel-line-phone.yaml');
}, 120_000);
afterAll(async () => {
  await runner?.close();
});

const hash = (samples: Int16Array) => createHash('sha256').update(new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength)).digest('hex');

/** Everything a run must repeat exactly: the audio both ways, the verdict, the timings and the agent's events on the call clock. */
function fingerprint(result: ScenarioResult) {
  const log = result.log!;
  return {
    callerAudio: hash(log.callerTrack),
    agentAudio: hash(log.agentTrack),
    passed: result.passed,
    failures: result.failures,
    turns: result.turns,
    durationMs: result.durationMs,
    v2v: result.v2v,
    events: log.events.map(({ atMs, event }) => `${atMs} ${event.type}`),
    sent: log.sentMessages,
  };
}

describe('a scenario on a lossy, noisy phone line is deterministic', () => {
  it('gives byte-identical call audio and identical figures for the same seed, alone or beside another call; another seed changes the line', async () => {
    const alone = fingerprint(await runner.run(phone!));
    expect(alone.passed).toBe(true);
    // The same call again while another call (another seed) runs beside it on the same engines.
    const [again, beside] = await Promise.all([runner.run(phone!), runner.run(phone!, { seed: 2 })]);
    expect(fingerprint(again)).toEqual(alone);
    // The seed drives the line's noise, loss and jitter: the caller's audio as the agent got it differs.
    expect(fingerprint(beside).callerAudio).not.toBe(alone.callerAudio);
  }, 120_000);
});
