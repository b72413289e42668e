/**
 * Density with hosted engines, measured from outside over the real wire paths. Three processes: (a) a stand-in
 * hosted speech service (bench/hosted-density/stand-in.ts: `/v1/asr` answers after 150 ms, `/v1/tts/live`
 * answers each flush after 120 ms with PCM paced in real time), (b) `shoal agent --service-url` running the
 * parcel-line script, (c) N Twilio-style callers (bench/hosted-density/callers.ts) playing a recording of a real
 * caller as 20 ms mu-law frames in real time and echoing marks.
 *
 * Per N: turns answered (reply within 5 s), reply after the caller's answer ends p50/p95, the agent's CPU per
 * call-second and cores used (/proc), the event loop's share of that CPU (the main thread's), RSS per call (peak
 * during the run minus before, over N), event-loop lag p99 (the agent's /metrics `nodejs_eventloop_lag_p99_seconds`, over the run, less the
 * monitor's sampling interval, `eventLoopPrecisionMs`), the first N whose p95 leaves 1.5x of one call's or leaves a turn unanswered, the largest N
 * that holds, and the default `--max-calls` for hosted engines against it. Prints one JSON line.
 *
 * Run: npx tsx bench/hosted-density.ts [--calls 1,10,25,50,75,90,100] [--stagger-ms 100] [--max-calls N]
 *        [--listen]                (the stand-in serves /v1/listen too: the agent streams recognition over it)
 *        [--service shoal]         (instead of the stand-in: a real `shoal serve` on this machine, so the agent
 *                                   streams recognition over its /v1/listen; its engines' CPU is not the agent's)
 *        [--cpu-prof DIR]          (profile the agent process: node --cpu-prof, written at its exit)
 *        [--soak 500 --lanes 10 [--every 100] [--heap-snapshots DIR]]
 *            (instead: that many short calls through one agent, `lanes` at a time, each lane one call after another;
 *             the agent's RSS and heap after a forced GC, after a warm-up and every `every` calls; heap snapshots
 *             at those points with --heap-snapshots; see bench/hosted-density/soak.ts)
 * About 45 s per N, plus start-up.
 */
import { cpus } from 'node:os';
import { load, p, round } from './capacity/measure.js';
import { defaultMaxCalls } from '../src/agent/admission.js';
import { eventLoopPrecisionMs } from '../src/metrics/index.js';
import { inspectorUrl } from './hosted-density/inspector.js';
import { cpuMs, loopCpuMs, metric, rssMb, runScript, shoalBin, startProcess, type Running } from './hosted-density/processes.js';
import { soak as runSoak } from './hosted-density/soak.js';

const argument = (name: string) => {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
};
const counts = (argument('--calls') ?? '1,10,25,50,75,90,100').split(',').map(Number);
const staggerMs = Number(argument('--stagger-ms') ?? 100);
const maxCalls = argument('--max-calls') ?? '1000';
const profileDir = argument('--cpu-prof');
const soak = argument('--soak');
const lanes = Number(argument('--lanes') ?? 10);

interface CallResult {
  admitted: boolean;
  connectedMs: number;
  replies: Array<number | null>;
}

const realService = argument('--service') === 'shoal';
const service = realService
  ? await startProcess(shoalBin, ['serve', '--port', '0', '--dev-key', 'bench-key', '--log-level', 'warn'], /listening on (\S+)/)
  : await startProcess('bench/hosted-density/stand-in.ts', process.argv.includes('--listen') ? ['--listen'] : [], /listening on (\S+)/, ['--import', 'tsx']);
let agent: Running | undefined;
try {
  const agentArgs = ['agent', '--port', '0', '--log-level', 'warn', '--script', 'examples/scripts/parcel-line.yaml', '--service-url', service.found, '--api-key', 'bench-key', '--max-calls', maxCalls];
  const flags = [...(profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : []), ...(soak ? ['--inspect=127.0.0.1:0'] : [])];
  agent = await startProcess(shoalBin, agentArgs, /open (\S+) and press/, flags);
  const pid = agent.child.pid!;
  const base = agent.found;
  const telephony = `${base.replace(/^http/, 'ws')}telephony`;
  const scrape = async () => (await fetch(`${base}metrics`)).text();
  const startLine = () => /Speech: .*/.exec(agent!.output())?.[0];
  const machine = { cpus: cpus().length, node: process.version };

  const callers = (calls: number, extra: string[] = []) =>
    runScript<{ answers_per_call: number; results: CallResult[] }>('bench/hosted-density/callers.ts', ['--url', telephony, '--calls', String(calls), '--stagger-ms', String(staggerMs), ...extra]);

  if (soak) {
    const inspector = inspectorUrl.exec(agent.output())?.[1];
    if (!inspector) throw new Error(`the agent printed no inspector URL:\n${agent.output()}`);
    const result = await runSoak({
      calls: Number(soak),
      lanes,
      every: Number(argument('--every') ?? 100),
      snapshotDir: argument('--heap-snapshots'),
      inspectorUrl: inspector,
      callers: (count, perLane) => callers(count, ['--answers', '1', '--sequential', String(perLane)]),
    });
    process.stdout.write(`${JSON.stringify({ ...result, machine, speech: startLine() })}\n`);
  } else {
    await callers(1); // warm-up: the first call loads what calls share
    // What the agent costs with no call: spread over the calls in `cpu_ms_per_call_second`, not in `..._above_idle`.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const idleFrom = cpuMs(pid);
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    const idleCpuMsPerSecond = round((cpuMs(pid) - idleFrom) / 10, 1)!;
    const rows = [];
    for (const calls of counts) {
      await new Promise((resolve) => setTimeout(resolve, 2000));
      const loadBefore = load();
      await scrape(); // resets the event-loop lag histogram
      const rssBefore = rssMb(pid);
      let peakRss = rssBefore;
      const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssMb(pid))), 250);
      const cpuBefore = cpuMs(pid);
      const loopBefore = loopCpuMs(pid);
      const started = performance.now();
      const run = await callers(calls);
      const wallMs = performance.now() - started;
      const usedMs = cpuMs(pid) - cpuBefore;
      const loopMs = loopCpuMs(pid) - loopBefore;
      clearInterval(sampler);
      const text = await scrape();
      const admitted = run.results.filter((r) => r.admitted);
      const replies = admitted.flatMap((r) => r.replies);
      const answered = replies.filter((r): r is number => r !== null);
      const callSeconds = admitted.reduce((sum, r) => sum + r.connectedMs, 0) / 1000;
      rows.push({
        calls,
        admitted: admitted.length,
        turns_answered: answered.length,
        turns: replies.length,
        answered_by_answer: Array.from({ length: run.answers_per_call }, (_, k) => admitted.filter((r) => r.replies[k] !== null).length),
        reply_p50_ms: p(answered, 50),
        reply_p95_ms: p(answered, 95),
        cpu_ms_per_call_second: round(usedMs / callSeconds, 1),
        cpu_ms_per_call_second_above_idle: round((usedMs - (idleCpuMsPerSecond * wallMs) / 1000) / callSeconds, 1),
        cores_used: round(usedMs / wallMs, 2),
        loop_cpu_ms_per_call_second: round(loopMs / callSeconds, 1),
        loop_busy: round(loopMs / wallMs, 2),
        rss_before_mb: rssBefore,
        rss_peak_mb: peakRss,
        rss_per_call_mb: round((peakRss - rssBefore) / calls, 2),
        event_loop_lag_p99_ms: round((metric(text, 'nodejs_eventloop_lag_p99_seconds') ?? NaN) * 1000 - eventLoopPrecisionMs, 1),
        load_average_before: loadBefore,
      });
      process.stderr.write(`${JSON.stringify(rows.at(-1))}\n`);
    }
    const single = rows.find((row) => row.calls === 1)?.reply_p95_ms;
    const holds = (row: { reply_p95_ms: number | null; turns_answered: number; turns: number }) => single !== undefined && single !== null && row.reply_p95_ms !== null && row.reply_p95_ms <= single * 1.5 && row.turns_answered === row.turns;
    const leaves = rows.find((row) => !holds(row));
    const limit = rows.filter((row) => !leaves || row.calls < leaves.calls).at(-1)?.calls ?? null;
    const defaultCalls = defaultMaxCalls('hosted');
    process.stdout.write(
      `${JSON.stringify({
        bench: 'hosted-density',
        machine,
        speech: startLine(),
        stand_in: { asr_ms: 150, tts_first_audio_ms: 120 },
        stagger_ms: staggerMs,
        vad_max_batch: process.env['SHOAL_VAD_MAX_BATCH'] ?? 'default',
        vad_batch_window_ms: process.env['SHOAL_VAD_BATCH_WINDOW_MS'] ?? 'default',
        idle_cpu_ms_per_second: idleCpuMsPerSecond,
        rows,
        first_calls_beyond_1_5x_single_p95_or_unanswered: leaves?.calls ?? null,
        largest_calls_held: limit,
        default_max_calls_hosted: defaultCalls,
        default_vs_largest_held: limit ? round(defaultCalls / limit, 2) : null,
        load_average_after: load(),
      })}\n`,
    );
  }
} finally {
  await agent?.stop();
  await service.stop();
}
process.exit(0);
