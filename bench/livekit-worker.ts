/**
 * LiveKit worker benchmark: N concurrent jobs through one `LiveKitWorker` process, dispatched by the protocol
 * stand-in for LiveKit's agent dispatch (binary `@livekit/protocol` frames over a real WebSocket) into room
 * doubles whose caller is present from the start. Speech engines are the test doubles (tone TTS, amplitude
 * ASR, energy VAD), so the figures are the worker's and the agent pipeline's own cost, not the engines'.
 * Prints one JSON line per N: assignment → first greeting audio handed to the room (p50/p95/max, ms) and
 * memory per job (heap and RSS growth over N live calls, KB).
 * Run: node --expose-gc --import tsx bench/livekit-worker.ts [N ...]   (default 10 50 100)
 */
import os from 'node:os';
import { percentile, VoiceAgent } from '../src/agent/index.js';
import { callJobRunner, LiveKitWorker } from '../src/transports/livekit/index.js';
import { AmplitudeStt, EnergyVad, FixedDialogue, ToneTts } from '../test/support/agent-doubles.js';
import { DispatchServerDouble } from '../test/support/livekit-dispatch-double.js';
import { RoomDouble } from '../test/support/livekit-room-double.js';

const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
const gc = (globalThis as { gc?: () => void }).gc;
const round = (value: number | undefined) => (value === undefined ? null : Math.round(value * 10) / 10);

async function settleMemory(): Promise<NodeJS.MemoryUsage> {
  for (let i = 0; i < 3; i++) {
    gc?.();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return process.memoryUsage();
}

async function run(jobs: number) {
  const server = await DispatchServerDouble.start();
  const agent = new VoiceAgent({
    dialogue: new FixedDialogue('fine', 'Hello, thanks for calling, how can I help you today?'),
    stt: new AmplitudeStt(),
    tts: new ToneTts(),
    vad: () => new EnergyVad(),
    mode: 'low-latency',
    userSilenceTimeoutMs: 600_000,
  });
  const assignedAt = new Map<string, number>();
  const firstGreeting = new Map<string, number>();
  const rooms: RoomDouble[] = [];
  const worker = new LiveKitWorker({
    url: server.url,
    apiKey: server.apiKey,
    apiSecret: server.apiSecret,
    capacity: jobs,
    loadIntervalMs: 1000,
    runJob: callJobRunner({
      agent,
      connect: async () => {
        const room = new RoomDouble(`room-${rooms.length}`);
        room.autoDrain = true;
        const publish = room.publish.bind(room);
        room.publish = (frame) => {
          if (!firstGreeting.has(room.roomName)) firstGreeting.set(room.roomName, performance.now());
          return publish(frame);
        };
        room.join({ identity: `caller-${rooms.length}`, attributes: { traceparent } });
        rooms.push(room);
        return room;
      },
    }),
  });
  await worker.start();
  const before = await settleMemory();
  for (let i = 0; i < jobs; i++) {
    server.offer(`AJ_${i}`, `room-${i}`);
    await server.until(() => server.of('availability').length > i);
    assignedAt.set(`room-${i}`, performance.now());
    server.assign(`AJ_${i}`, `room-${i}`);
  }
  await server.until(() => firstGreeting.size === jobs, 120_000);
  const during = await settleMemory();
  const latencies = [...assignedAt].map(([room, at]) => firstGreeting.get(room)! - at);
  for (const room of rooms) room.leave();
  await server.until(() => worker.activeJobs === 0, 60_000);
  await worker.close();
  await server.close();
  return {
    bench: 'livekit-worker',
    jobs,
    assignmentToFirstGreetingMs: { p50: round(percentile(latencies, 50)), p95: round(percentile(latencies, 95)), max: round(Math.max(...latencies)) },
    memoryPerJobKB: { heap: Math.round((during.heapUsed - before.heapUsed) / 1024 / jobs), rss: Math.round((during.rss - before.rss) / 1024 / jobs) },
    gcExposed: gc !== undefined,
    loadavg: os.loadavg().map((value) => Math.round(value * 100) / 100),
    machine: { cpus: os.cpus().length, node: process.version },
    note: 'engine doubles; the machine is shared (see loadavg): figures are noisy',
  };
}

const sizes = process.argv.slice(2).map(Number).filter((n) => Number.isInteger(n) && n > 0);
for (const jobs of sizes.length ? sizes : [10, 50, 100]) process.stdout.write(`${JSON.stringify(await run(jobs))}\n`);
