/**
 * `shoal serve` as a fleet on one PostgreSQL, as JSON: for 1, 2 and 4 instances, requests per second and p95 of a
 * cheap authenticated read (GET /wallet/self/api-credit) spread over the instances, the same against SQLite at one
 * instance, the overdraft race (40 TTS requests across the instances on credit for 5), and how long after a
 * revocation another instance refuses the key (HTTP) and ends its live session.
 * Goals: balance never below 0; the read's p95 within 2x of SQLite's at one instance; revocation <= 1 s.
 * Run with `npx tsx bench/fleet.ts` (needs `scripts/setup.sh --test` for PostgreSQL).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir, availableParallelism } from 'node:os';
import { join } from 'node:path';
import { connectLive } from '../test/support/service-live-client.js';
import { startPgCluster } from '../test/support/pg-cluster.js';
import { creditsToMicros, hashKeySecret, openPgStores, priceOf } from '../src/service/store/index.js';

const root = join(import.meta.dirname, '..');
const readSeconds = 6;
const concurrency = 16;
const devKey = 'sk_bench_fleet';
const raceText = 'The fleet shares one wallet, so the racing requests are served only while the balance covers them.';

interface Server {
  url: string;
  child: ChildProcess;
}

async function startServe(args: string[]): Promise<Server> {
  const child = spawn(process.execPath, ['bin/shoal.js', 'serve', '--port', '0', '--dev-key', devKey, '--key-rate', '1000000', '--tts-streams', '20', '--log-level', 'warn', ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`shoal serve exited with ${code}`)));
  });
  return { url, child };
}

async function stopAll(servers: Server[]): Promise<void> {
  await Promise.all(servers.map((server) => new Promise<void>((resolve) => {
    server.child.once('exit', () => resolve());
    server.child.kill('SIGTERM');
  })));
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! * 100) / 100;
}

/** `concurrency` clients reading their wallet for `seconds`, round robin over the instances. */
async function reads(servers: Server[], seconds: number) {
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  let next = 0;
  const until = performance.now() + seconds * 1000;
  const warmUntil = performance.now() + 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        const server = servers[next++ % servers.length]!;
        const started = performance.now();
        const response = await fetch(`${server.url}/wallet/self/api-credit`, { headers: { authorization: `Bearer ${devKey}` } });
        await response.arrayBuffer();
        if (started >= warmUntil) {
          latencies.push(performance.now() - started);
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        }
      }
    }),
  );
  return {
    requestsPerSecond: Math.round(latencies.length / (seconds - 1)),
    p50Ms: percentile(latencies, 50),
    p95Ms: percentile(latencies, 95),
    statuses: Object.fromEntries(statuses),
  };
}

async function fleet(database: string, count: number) {
  const servers = await Promise.all(Array.from({ length: count }, () => startServe(['--database', database])));
  const admin = await openPgStores(database, { serve: false, poolSize: 2 });
  try {
    const read = await reads(servers, readSeconds);
    // The overdraft race: credit for 5 requests, 40 at once across the instances.
    const price = priceOf({ kind: 'tts', characters: raceText.length });
    const user = `racer${count}`;
    const credit = 5 * price + Math.round(price / 2);
    await admin.accounts.createUser({ id: user, creditMicros: credit });
    await admin.accounts.createKey({ userId: user, name: 'race', secretHash: hashKeySecret(`sk_${user}`) });
    const statuses = await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        const response = await fetch(`${servers[i % count]!.url}/v1/tts`, {
          method: 'POST',
          headers: { authorization: `Bearer sk_${user}`, 'content-type': 'application/json' },
          body: JSON.stringify({ text: raceText, format: 'pcm' }),
        });
        await response.arrayBuffer();
        return response.status;
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    const served = statuses.filter((status) => status === 200).length;
    const balanceAfter = (await admin.accounts.getUser(user))!.creditMicros;
    const race = {
      requests: 40,
      served,
      refused402: statuses.filter((status) => status === 402).length,
      other: statuses.filter((status) => status !== 200 && status !== 402).length,
      otherStatuses: [...new Set(statuses.filter((status) => status !== 200 && status !== 402))],
      creditMicros: credit,
      servedMicros: served * price,
      balanceAfterMicros: balanceAfter,
      debitedMicros: await admin.accounts.debitedMicros(user),
    };
    const revocation = count > 1 ? await revocationSeen(admin, servers) : undefined;
    return { instances: count, read, race, ...(revocation ? { revocation } : {}) };
  } finally {
    await admin.close();
    await stopAll(servers);
  }
}

/** Revokes a key (as `shoal keys revoke --database` does) and times another instance refusing it and ending its live session. */
async function revocationSeen(admin: Awaited<ReturnType<typeof openPgStores>>, servers: Server[]) {
  const user = `revoked${servers.length}`;
  await admin.accounts.createUser({ id: user, creditMicros: creditsToMicros(10) });
  const key = await admin.accounts.createKey({ userId: user, name: 'to revoke', secretHash: hashKeySecret(`sk_${user}`) });
  const other = servers[1]!;
  const headers = { authorization: `Bearer sk_${user}` };
  const live = await connectLive(`${other.url.replace('http', 'ws')}/v1/tts/live`, headers);
  live.send({ event: 'start', request: { text: '', format: 'pcm' } });
  const started = performance.now();
  await admin.accounts.revokeKey(key.id);
  let httpMs: number | undefined;
  while (httpMs === undefined && performance.now() - started < 5000) {
    const response = await fetch(`${other.url}/wallet/self/api-credit`, { headers });
    await response.arrayBuffer();
    if (response.status === 401) httpMs = performance.now() - started;
  }
  const closed = await Promise.race([live.closed.then(() => performance.now() - started), new Promise<undefined>((resolve) => setTimeout(resolve, 5000))]);
  return { httpRefusedMs: httpMs && Math.round(httpMs * 10) / 10, liveSessionEndedMs: closed && Math.round(closed * 10) / 10 };
}

async function sqlite() {
  const data = await mkdtemp(join(tmpdir(), 'shoal-bench-fleet-'));
  const server = await startServe(['--data', data]);
  try {
    return { instances: 1, read: await reads([server], readSeconds) };
  } finally {
    await stopAll([server]);
    await rm(data, { recursive: true, force: true });
  }
}

const loadBefore = loadavg();
const cluster = await startPgCluster({ durable: true });
try {
  // SQLite is measured before and after the fleets: on a shared machine the load drifts between runs.
  const sqliteBefore = await sqlite();
  const postgres = [];
  for (const count of [1, 2, 4]) postgres.push(await fleet(await cluster.createDatabase(), count));
  const sqliteAfter = await sqlite();
  const worstRace = postgres.map((result) => result.race);
  const revocations = postgres.flatMap((result) => (result.revocation ? [result.revocation] : []));
  const sqliteP95 = (sqliteBefore.read.p95Ms + sqliteAfter.read.p95Ms) / 2;
  console.log(
    JSON.stringify(
      {
        date: new Date().toISOString(),
        machine: { cores: availableParallelism(), loadavgBefore: loadBefore.map((v) => Math.round(v * 100) / 100), loadavgAfter: loadavg().map((v) => Math.round(v * 100) / 100) },
        setup: { readSeconds, concurrency, postgres: 'default fsync and synchronous_commit', note: 'load generator, PostgreSQL and every instance share this machine' },
        sqlite: { before: sqliteBefore, after: sqliteAfter, meanP95Ms: Math.round(sqliteP95 * 100) / 100 },
        postgres,
        goals: {
          balanceNeverBelowZero: worstRace.every((race) => race.balanceAfterMicros >= 0 && race.servedMicros <= race.creditMicros),
          readP95WithinTwiceSqlite: postgres.map((result) => ({ instances: result.instances, ratio: Math.round((result.read.p95Ms / sqliteP95) * 100) / 100, met: result.read.p95Ms <= 2 * sqliteP95 })),
          revocationWithinOneSecond: revocations.every((r) => (r.httpRefusedMs ?? Infinity) <= 1000 && (r.liveSessionEndedMs ?? Infinity) <= 1000),
        },
      },
      null,
      2,
    ),
  );
} finally {
  await cluster.close();
}
