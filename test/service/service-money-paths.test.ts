/**
 * The fleet's money paths: a settle while the database is away bills once when it is back and never turns a
 * delivered answer into an error; an idempotent retry on another instance is billed once; the change listener
 * notices a connection that stopped forwarding; the heartbeat and sweep never pile up on a slow database.
 */
import { createServer, connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { TextToSpeechEngine } from '../../src/engines/index.js';
import { creditsToMicros, PgDatabase, PgFleet, priceOf } from '../../src/service/store/index.js';
import { balance, fleetCluster, openHolds, pgOf, startInstance, until, userWith, type Instance } from '../support/fleet-harness.js';
import { authHeaders, testEngines, type TestUser } from '../support/service-store-harness.js';

const cluster = fleetCluster();

const ledgerOf = async (instance: Instance, userId: string) =>
  (await pgOf(instance).db.query<{ amount_micros: number }>('SELECT amount_micros FROM ledger WHERE user_id = $1 AND amount_micros < 0', [userId])).rows;

/** A TCP relay to PostgreSQL that can stop forwarding without closing anything, as a dead network path does. */
async function relayTo(targetPort: number): Promise<{ port: number; freeze(): void; thaw(): void; close(): void }> {
  const sockets = new Set<Socket>();
  let frozen = false;
  const server = createServer((client) => {
    const upstream = connect(targetPort, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => sockets.delete(socket));
    }
    const forward = (from: Socket, to: Socket) => from.on('data', (chunk) => void (!frozen && to.write(chunk)));
    forward(client, upstream);
    forward(upstream, client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    freeze: () => (frozen = true),
    thaw: () => (frozen = false),
    close: () => {
      server.close();
      for (const socket of sockets) socket.destroy();
    },
  };
}

describe('money paths on a fleet', () => {
  it('answer a voice design that finished while the database was away, and bill it once when it is back', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const synthesising = new Promise<void>((resolve) => (started = resolve));
    const flite = testEngines.tts();
    const gated: TextToSpeechEngine = Object.assign(Object.create(flite) as TextToSpeechEngine, {
      synthesize: async (...args: Parameters<TextToSpeechEngine['synthesize']>) => {
        started();
        await gate;
        return flite.synthesize(...args);
      },
    });
    const database = await cluster.createDatabase();
    const a = await startInstance(database, { engines: { ...testEngines, tts: () => gated } });
    const user = await userWith(a, 'designer', creditsToMicros(10));
    const design = fetch(`${a.url}/v1/voice-design`, {
      method: 'POST',
      headers: { ...authHeaders(user), 'content-type': 'application/json', model: 'voice-design-1' },
      body: JSON.stringify({ instruction: 'a calm low voice', n: 1 }),
    });
    await synthesising;
    expect(await openHolds(a)).toBe(1);
    await cluster.stop();
    let answered: Response;
    try {
      release();
      answered = await design;
      // A request made during the outage is refused, and must never be billed.
      const refused = await fetch(`${a.url}/v1/voice-design`, {
        method: 'POST',
        headers: { ...authHeaders(user), 'content-type': 'application/json', model: 'voice-design-1' },
        body: JSON.stringify({ instruction: 'a bright voice', n: 1 }),
      });
      expect(refused.status).toBe(503);
    } finally {
      await cluster.start();
    }
    expect(answered.status).toBe(200);
    expect(((await answered.json()) as { candidates: unknown[] }).candidates).toHaveLength(1);
    const price = priceOf({ kind: 'voice-design' });
    await until(async () => (await ledgerOf(a, 'designer').catch(() => [])).length === 1, 10_000);
    expect(await ledgerOf(a, 'designer')).toEqual([{ amount_micros: -price }]);
    expect(await openHolds(a)).toBe(0);
    expect(await balance(a, 'designer')).toBe(creditsToMicros(10) - price);
  }, 60_000);

  it('serve an idempotent retry that reaches the other instance from the first response, billed once', async () => {
    const database = await cluster.createDatabase();
    const [a, b] = await Promise.all([startInstance(database), startInstance(database)]);
    const user: TestUser = await userWith(a, 'retrier', creditsToMicros(10));
    const post = (instance: Instance) =>
      fetch(`${instance.url}/v1/tts`, {
        method: 'POST',
        headers: { ...authHeaders(user), 'content-type': 'application/json', 'idempotency-key': 'order-42' },
        body: JSON.stringify({ text: 'Your order is confirmed.', format: 'wav' }),
      });
    const first = Buffer.from(await (await post(a)).arrayBuffer());
    // The first is kept once its response has closed on the server, which can come just after the client read it:
    // until then a retry is told 409 with Retry-After, as the docs tell clients.
    let retry = await post(b);
    for (let attempt = 0; retry.status === 409 && attempt < 50; attempt++) {
      expect(retry.headers.get('retry-after')).toBe('1');
      await new Promise((resolve) => setTimeout(resolve, 100));
      retry = await post(b);
    }
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(Buffer.from(await retry.arrayBuffer()).equals(first)).toBe(true);
    // The first request settles when its response closes: wait for its row, then see that no second one follows.
    await until(async () => (await ledgerOf(a, 'retrier')).length > 0, 5000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await ledgerOf(a, 'retrier')).toEqual([{ amount_micros: -priceOf({ kind: 'tts', characters: 'Your order is confirmed.'.length }) }]);
  }, 60_000);

  it('notice a change-listener connection that stops forwarding without closing, and recover when it flows again', async () => {
    const database = new URL(await cluster.createDatabase());
    const relay = await relayTo(Number(database.port));
    try {
      database.port = String(relay.port);
      const a = await startInstance(database.toString(), { fleet: { listenCheckMs: 200, listenCheckTimeoutMs: 300 } });
      const ready = async () => (await fetch(`${a.url}/readyz`)).status === 200;
      expect(await ready()).toBe(true);
      relay.freeze();
      const frozenAt = Date.now();
      await until(async () => !(await ready()), 5000);
      // Documented bound: listenCheckMs + listenCheckTimeoutMs (0.5 s here), plus a poll.
      expect(Date.now() - frozenAt).toBeLessThan(2000);
      relay.thaw();
      await until(ready, 15_000);
    } finally {
      relay.close();
    }
  }, 60_000);
});

describe('a migration that loses its connection', () => {
  it('fails with its own error, not with the rollback or unlock that failed after it', async () => {
    const db = new PgDatabase(await cluster.createDatabase());
    try {
      const dying = [{ version: 1, name: 'ends its own session', sql: 'SELECT pg_terminate_backend(pg_backend_pid())' }];
      await expect(db.migrate(dying)).rejects.toThrow(/terminating connection due to administrator command/);
      // The pool is still usable afterwards: the broken connection was not handed back.
      expect((await db.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await db.close();
    }
  });
});

describe('the fleet on a slow database', () => {
  it('runs one heartbeat and one sweep at a time, however long the database takes', async () => {
    const inFlight = new Map<string, number>();
    const most = new Map<string, number>();
    const hang = (kind: string) => {
      inFlight.set(kind, (inFlight.get(kind) ?? 0) + 1);
      most.set(kind, Math.max(most.get(kind) ?? 0, inFlight.get(kind)!));
      return new Promise<never>(() => {});
    };
    let registered = false;
    const slow = {
      url: 'postgres://postgres@127.0.0.1:1/none',
      healthy: true,
      pool: {},
      query: async (sql: string) => {
        if (!registered && sql.startsWith('INSERT INTO instances')) return (registered = true), { rows: [], rowCount: 1 };
        if (sql.startsWith('DELETE FROM instances')) return { rows: [], rowCount: 0 };
        return hang('heartbeat');
      },
      transaction: async () => hang('sweep'),
    } as unknown as PgDatabase;
    const fleet = new PgFleet(slow, 'inst_slow', { heartbeatMs: 10, sweepEveryMs: 10, listenCheckMs: 10 });
    await fleet.start();
    await new Promise((resolve) => setTimeout(resolve, 300));
    await fleet.close();
    expect(most.get('heartbeat')).toBe(1);
    expect(most.get('sweep')).toBe(1);
  });
});
