/**
 * A call through a billed speech service (recognition on /v1/asr, replies on the live socket): each turn's
 * sttCharge/ttsCharge, and the call record's charge, equal what the service's account store debited. The same
 * over /v1/listen (what `shoal agent --service-url` uses), which says what it billed only as the call's socket closes.
 */
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createDialogue } from '../../agents/index.js';
import { createEmbeddedAgentStack, SqliteCallStore, type EmbeddedAgentStack } from '../../src/agent/index.js';
import { openCallRecords } from '../../src/cli/call-records.js';
import { showCall } from '../../src/cli/run-calls.js';
import { listenRecognizer } from '../../src/cli/service-recognition.js';
import { decodeCall, runFileCall } from '../../src/transports/file/file-call.js';
import { startHarness, type Harness } from '../support/service-store-harness.js';

let h: Harness;
let stack: EmbeddedAgentStack;
beforeAll(async () => {
  h = await startHarness({ rateLimit: { requestsPerSecond: 1000, burst: 1000 } });
  stack = await createEmbeddedAgentStack({ mode: 'balanced', stt: 'service', service: { url: h.url, apiKey: h.users.alice.key } });
}, 120_000);
afterAll(async () => {
  await stack?.close();
  await h?.close();
});

/** A receptionist call on `on`, recorded into a fresh folder; then what the service debited `user` once it settled. */
async function billedCall(on: EmbeddedAgentStack, user: 'alice' | 'bob') {
  const dataDir = await mkdtemp(join(tmpdir(), 'shoal-call-charge-'));
  const opened = (await openCallRecords({ dataDir }, (error) => { throw error; }))!;
  const caller = await decodeCall(await readFile(join(import.meta.dirname, '../fixtures/calls/booking-16k.wav')));
  const { summary } = await runFileCall(on.agentFor(createDialogue('receptionist'), { records: opened.records }), caller, { fast: true });
  await opened.close();
  // Billing settles when a socket or response closes: wait until the debits stop changing.
  const debited = () => h.services.stores.accounts.debitedMicros(h.users[user].id);
  await expect.poll(async () => [await debited(), await new Promise((resolve) => setTimeout(resolve, 100)), await debited()].filter((_, i) => i !== 1).reduce((a, b) => (a === b ? a : Number.NaN)), { timeout: 10_000 }).not.toBeNaN();
  return { dataDir, summary, total: await debited() };
}

describe('the cost of a call', () => {
  it("a call's record carries the sum of the service's debits for it, and each turn its own", async () => {
    const { dataDir, summary, total } = await billedCall(stack, 'alice');
    expect(total).toBeGreaterThan(0);
    const spoken = summary.turns.filter((turn) => turn.userText !== '');
    expect(spoken.length).toBeGreaterThan(0);
    for (const turn of spoken) expect(turn.metrics.sttCharge).toBeGreaterThan(0);
    for (const turn of summary.turns) expect(turn.metrics.ttsCharge).toBeGreaterThan(0);
    const sum = summary.turns.reduce((credits, turn) => credits + (turn.metrics.sttCharge ?? 0) + (turn.metrics.ttsCharge ?? 0), 0);
    expect(Math.round(sum * 1e6)).toBe(total);
    const reopened = (await openCallRecords({ dataDir }, (error) => { throw error; }))!;
    try {
      const [listed] = (await reopened.store.list({})).calls;
      const record = await reopened.store.get(listed!.id);
      expect(Math.round(record!.charge! * 1e6)).toBe(total);
      const printed: string[] = [];
      const write = vi.spyOn(process.stdout, 'write').mockImplementation((text) => (printed.push(String(text)), true));
      try {
        await showCall(record!.id, { dataDir });
      } finally {
        write.mockRestore();
      }
      expect(printed.join('')).toContain(`speech service charge: ${record!.charge} credits`);
    } finally {
      await reopened.close();
    }
  }, 120_000);

  it('over /v1/listen, the call record carries the recognition charge the service reported as the socket closed', async () => {
    const service = { url: h.url, apiKey: h.users.bob.key };
    const listening = await createEmbeddedAgentStack({ mode: 'balanced', stt: listenRecognizer(service, 'balanced'), service });
    try {
      const { dataDir, summary, total } = await billedCall(listening, 'bob');
      expect(summary.turns.some((turn) => turn.userText !== '')).toBe(true);
      const synthesis = summary.turns.reduce((credits, turn) => credits + (turn.metrics.ttsCharge ?? 0), 0);
      const reopened = (await openCallRecords({ dataDir }, (error) => { throw error; }))!;
      try {
        const [listed] = (await reopened.store.list({})).calls;
        const record = (await reopened.store.get(listed!.id))!;
        expect(record.finished).toBe(true);
        const recognition = record.entries.filter((entry) => entry.kind === 'charge');
        expect(recognition).toHaveLength(1);
        expect(recognition[0]!.sttCharge).toBeGreaterThan(0);
        expect(Math.round((recognition[0]!.sttCharge + synthesis) * 1e6)).toBe(total);
        expect(Math.round(record.charge! * 1e6)).toBe(total);
      } finally {
        await reopened.close();
      }
    } finally {
      await listening.close();
    }
  }, 120_000);

  it('a service that reports no charge leaves the record without one (null)', async () => {
    const store = new SqliteCallStore(await mkdtemp(join(tmpdir(), 'shoal-call-charge-')));
    await store.begin({ id: 'c', traceId: 't', agent: 'a', mode: 'balanced', transport: { kind: 'file' }, startedAt: new Date().toISOString() });
    await store.append('c', [{ kind: 'turn', atMs: 1, turn: 1, userText: 'hi', agentText: 'hello', interrupted: false, metrics: { interrupted: false } }]);
    expect((await store.get('c'))!.charge).toBeNull();
    await store.close();
  });
});
