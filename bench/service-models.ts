/**
 * Figures of the self-hosted service's accounts and voice models as JSON: model list latency over HTTP with
 * 10,000 stored models (target p95 <= 20 ms), and requests per second of an authenticated tiny TTS request.
 * Run with `npx tsx bench/service-models.ts`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BuiltinVoices, createSpeechService } from '../src/service/index.js';
import { creditsToMicros, hashKeySecret, openAccountServices, type VoiceModelRecord } from '../src/service/store/index.js';

const modelCount = 10_000;
const listRequests = 300;
const ttsSeconds = 5;
const ttsConcurrency = 4;
const tags = ['calm', 'bright', 'deep', 'narrator', 'female', 'male', 'english', 'fast', 'slow', 'warm'];

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! * 100) / 100;
}

function seedModel(i: number, ownerId: string): VoiceModelRecord {
  const created = new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString();
  return {
    id: `bench${String(i).padStart(27, '0')}`, ownerId, type: 'tts', title: `Voice ${i} ${tags[i % tags.length]}`, titleLanguage: 'en',
    description: '', coverFile: '', trainMode: 'fast', state: 'trained', visibility: i % 10 === 0 ? 'private' : i % 10 === 1 ? 'unlist' : 'public',
    tags: [tags[i % tags.length]!, tags[(i * 7) % tags.length]!], languages: [i % 3 === 0 ? 'zh' : 'en'], likeCount: i % 13, markCount: 0,
    sharedCount: 0, taskCount: (i * 37) % 1000, lockVisibility: false, dmcaTakenDown: false, defaultText: '', source: null,
    samples: [{ file: 'voice-0.wav', originalName: 'a.wav', text: 'hello', quality: { filename: 'a.wav', duration_ms: 4000, language: 'en', quality: {}, quality_passed: true, quality_reason: '' } }],
    generated: [], voice: { voice: 'slt' }, qualityCreatedAt: created, createdAt: created, updatedAt: created,
  };
}

const dataDir = await mkdtemp(join(tmpdir(), 'shoal-bench-models-'));
const services = await openAccountServices(dataDir, { rateLimit: { requestsPerSecond: 1e6, burst: 1e6 } });
const accounts = services.stores.accounts;
for (const id of ['owner-a', 'owner-b', 'caller']) {
  await accounts.createUser({ id, creditMicros: creditsToMicros(1e6) });
}
await accounts.createKey({ userId: 'caller', name: 'bench', secretHash: hashKeySecret('sk_bench') });

const seedStarted = performance.now();
services.stores.db.pragma('synchronous = OFF');
await Promise.all(
  Array.from({ length: 8 }, async (_, worker) => {
    for (let i = worker; i < modelCount; i += 8) await services.stores.models.create(seedModel(i, i % 2 ? 'owner-a' : 'owner-b'), []);
  }),
);
services.stores.db.pragma('synchronous = NORMAL');
// A long-running server refreshes planner statistics hourly and at every start; do it once after seeding.
services.stores.optimize();
const seedMs = performance.now() - seedStarted;

const service = await createSpeechService({
  accounts: services.accounts,
  voices: new BuiltinVoices(services.voices),
  extraRoutes: [services.routes],
  logLevel: 'silent',
});
const url = await service.listen({ host: '127.0.0.1', port: 0 });
const headers = { authorization: 'Bearer sk_bench' };

const queries: Record<string, string> = {
  default: '/model',
  created_at: '/model?sort_by=created_at&page_size=20',
  task_count: '/model?sort_by=task_count&page_size=20',
  tag: '/model?tag=female',
  tags: '/model?tag=female&tag=english',
  title: '/model?title=Voice%2042',
  language: '/model?language=zh&sort_by=created_at',
  deep_page: '/model?page_number=500&page_size=10',
  author: '/model?author_id=owner-a&page_size=50',
};
// Queries are interleaved round by round, so that every query meets the same background load.
const times: Record<string, number[]> = Object.fromEntries(Object.keys(queries).map((name) => [name, []]));
const totals: Record<string, number> = {};
for (let round = 0; round < listRequests / 3 + 5; round++) {
  for (const [name, path] of Object.entries(queries)) {
    const started = performance.now();
    const response = await fetch(`${url}${path}`, { headers });
    const body = (await response.json()) as { total: number };
    if (response.status !== 200) throw new Error(`${path}: ${response.status} ${JSON.stringify(body)}`);
    if (round >= 5) times[name]!.push(performance.now() - started);
    totals[name] = body.total;
  }
}
const all = Object.values(times).flat();
const list = Object.fromEntries(
  Object.entries(times).map(([name, values]) => [name, { p50_ms: percentile(values, 50), p95_ms: percentile(values, 95), total: totals[name] }]),
);

// The same queries straight against the store, to separate database time from HTTP time.
const storeTimes: number[] = [];
for (const path of Object.values(queries)) {
  const params = new URL(path, 'http://x').searchParams;
  const query = {
    viewerId: 'caller',
    pageSize: Number(params.get('page_size') ?? 10),
    pageNumber: Number(params.get('page_number') ?? 1),
    sortBy: (params.get('sort_by') ?? 'score') as 'score',
    ...(params.get('title') ? { title: params.get('title')! } : {}),
    ...(params.getAll('tag').length ? { tags: params.getAll('tag') } : {}),
    ...(params.get('language') ? { languages: params.getAll('language') } : {}),
    ...(params.get('author_id') ? { authorId: params.get('author_id')! } : {}),
  };
  for (let i = 0; i < 100; i++) {
    const started = performance.now();
    await services.stores.models.list(query);
    storeTimes.push(performance.now() - started);
  }
}
const baseline: number[] = [];
for (let i = 0; i < 200; i++) {
  const started = performance.now();
  await (await fetch(`${url}/wallet/self/api-credit`, { headers })).arrayBuffer();
  baseline.push(performance.now() - started);
}

async function throughput(request: () => Promise<Response>, seconds: number, concurrency: number) {
  const latencies: number[] = [];
  let failures = 0;
  const deadline = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const started = performance.now();
        const response = await request();
        await response.arrayBuffer();
        if (response.status === 200) latencies.push(performance.now() - started);
        else failures++;
      }
    }),
  );
  return {
    requests_per_s: Math.round((latencies.length / seconds) * 10) / 10,
    p50_ms: percentile(latencies, 50),
    p95_ms: percentile(latencies, 95),
    failures,
    concurrency,
  };
}

const tinyTts = () =>
  fetch(`${url}/v1/tts`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ text: 'Hi.', format: 'pcm', sample_rate: 16000 }),
  });
await throughput(tinyTts, 1, 2);
const debitsBefore = await accounts.debitedMicros('caller');
const tts = await throughput(tinyTts, ttsSeconds, ttsConcurrency);
await new Promise((resolve) => setTimeout(resolve, 300));
const billedRequests = ((await accounts.debitedMicros('caller')) - debitsBefore) / services.accounts.pricing.ttsMicrosPerCharacter / 3;
const wallet = await throughput(() => fetch(`${url}/wallet/self/api-credit`, { headers }), 3, ttsConcurrency);

await service.close();
services.close();
await rm(dataDir, { recursive: true, force: true });

console.log(
  JSON.stringify(
    {
      models: modelCount,
      seed_ms: Math.round(seedMs),
      model_list: {
        p50_ms: percentile(all, 50),
        p95_ms: percentile(all, 95),
        target_p95_ms: 20,
        store_only: { p50_ms: percentile(storeTimes, 50), p95_ms: percentile(storeTimes, 95) },
        http_baseline_wallet_read: { p50_ms: percentile(baseline, 50), p95_ms: percentile(baseline, 95) },
        by_query: list,
      },
      tiny_tts: { ...tts, billed_requests: billedRequests },
      authenticated_wallet_read: wallet,
    },
    null,
    2,
  ),
);
