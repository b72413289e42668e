/**
 * Capacity benchmark: prints one JSON line per part (with the load average, since the machine may be shared).
 * (a) embedded stack, N concurrent staggered real-time fixture calls: voice-to-voice p50/p95, RSS and CPU per call,
 *     where the time goes (ms each engine pool's threads and the main thread worked per call-second, event-loop
 *     lag, ASR final after end of speech), idle RSS (one recognizer worker) and warm RSS (all started), and the
 *     largest N whose p95 stays within 1.5x of one call's;
 * (b) framework only, engines doubled at hosted latencies: 200+ concurrent calls, overhead p95, MB per call,
 *     and 1,000 sequential calls' memory growth;
 * (c) `shoal serve`: 20 concurrent TTS requests per format, p95, all 20 admitted (`--tts-streams 20`), then MP3 at the
 *     default cap (the excess refused with 503).
 * Run: npx tsx bench/capacity.ts [--part embedded|framework|serve] [--quick]   (each part < 2 min)
 * Phone calls from outside: bench/phone-load.ts.
 */
import { cpus } from 'node:os';
import { embeddedCapacity } from './capacity/embedded.js';
import { concurrentCalls, sequentialCalls } from './capacity/framework.js';
import { load } from './capacity/measure.js';
import { serveConcurrentTts } from './capacity/serve.js';

const argument = (name: string) => {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
};
const part = argument('--part');
const quick = process.argv.includes('--quick');
const machine = { cpus: cpus().length, node: process.version };
const print = (name: string, figures: object, loadBefore: Array<number | null>) =>
  process.stdout.write(`${JSON.stringify({ part: name, machine, load_average_before: loadBefore, load_average_after: load(), ...figures })}\n`);

const targets = {
  embedded: { calls_within_1_5x_p95: 8, rss_per_call_mb: 30, idle_rss_mb: 300 },
  framework: { concurrent_calls: 200, overhead_p95_ms: 20, rss_per_call_mb: 5, sequential_rss_growth: 'none' },
  serve: { mp3_p95_ms: 1000 },
};

if (!part || part === 'embedded') {
  const before = load();
  print('embedded', { targets: targets.embedded, ...(await embeddedCapacity(quick ? [1, 4, 8] : [1, 2, 4, 8, 12, 16], 700)) }, before);
}
if (!part || part === 'framework') {
  const before = load();
  const concurrent = await concurrentCalls(quick ? 50 : 250, 3000);
  const sequential = await sequentialCalls(quick ? 100 : 1000);
  print('framework', { targets: targets.framework, concurrent, sequential }, before);
}
if (!part || part === 'serve') {
  const before = load();
  print('serve', { targets: targets.serve, ...(await serveConcurrentTts(20, ['mp3', 'opus', 'wav', 'pcm'], 20)) }, before);
  print('serve-default-cap', await serveConcurrentTts(20, ['mp3']), load());
}
process.exit(0);
