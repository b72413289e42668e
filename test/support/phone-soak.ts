/**
 * A soak of one `shoal agent` process: many short phone calls over Twilio's media-stream protocol, a few at a
 * time, with the process's resident memory and open file descriptors read from /proc after the first calls
 * and at the end. For `npm run test:reliability` and bench/reliability.ts.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import { shoalEntry } from './shoal-entry.js';

export interface SoakOptions {
  calls: number;
  /** Calls in progress at once. */
  concurrency: number;
  /** Where the baseline is taken (after this many calls). */
  baselineAfter: number;
  /** Caller audio each call sends, in ms, after the agent's first words arrive. */
  callerMs: number;
  progress?(done: number): void;
}

export interface SoakResult {
  calls: number;
  failed: number;
  seconds: number;
  rssBaselineMb: number;
  rssEndMb: number;
  rssGrowthMb: number;
  fdsBaseline: number;
  fdsEnd: number;
}

const root = join(import.meta.dirname, '../..');

function rssMb(pid: number): number {
  const line = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Math.round(Number(line?.[1] ?? 0) / 102.4) / 10;
}

function openFds(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

/** One short call: start, wait for the agent's first audio, send `callerMs` of silence, stop. */
async function call(url: string, n: number, callerMs: number): Promise<void> {
  const ws = new WebSocket(`${url.replace('http', 'ws')}telephony`);
  const streamSid = `MZ${String(n).padStart(32, '0')}`;
  try {
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    const firstAudio = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`call ${n}: no audio from the agent in 20 s`)), 20_000);
      ws.on('message', (data) => {
        if ((JSON.parse(String(data)) as { event: string }).event === 'media') {
          clearTimeout(timer);
          resolve();
        }
      });
      ws.once('close', (code, reason) => reject(new Error(`call ${n}: closed ${code} ${String(reason)}`)));
    });
    ws.send(JSON.stringify({ event: 'connected', protocol: 'Call', version: '1.0.0' }));
    ws.send(
      JSON.stringify({
        event: 'start',
        sequenceNumber: '1',
        streamSid,
        start: { accountSid: 'AC0001', streamSid, callSid: `CA${String(n).padStart(32, '0')}`, tracks: ['inbound'], customParameters: {}, mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 } },
      }),
    );
    await firstAudio;
    const silence = Buffer.alloc(160, 0xff).toString('base64');
    for (let sent = 0; sent < callerMs; sent += 20) {
      ws.send(JSON.stringify({ event: 'media', streamSid, media: { track: 'inbound', chunk: String(sent / 20), timestamp: String(sent), payload: silence } }));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    ws.send(JSON.stringify({ event: 'stop', streamSid, stop: { accountSid: 'AC0001', callSid: `CA${n}` } }));
  } finally {
    ws.close();
    await new Promise((resolve) => (ws.readyState === WebSocket.CLOSED ? resolve(undefined) : ws.once('close', resolve)));
  }
}

export async function runPhoneSoak(options: SoakOptions): Promise<SoakResult> {
  const child = spawn(process.execPath, [shoalEntry(), 'agent', '--port', '0', '--mode', 'low-latency', '--max-calls', String(options.concurrency * 2), '--log-level', 'error'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    let output = '';
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`shoal agent did not start: ${output}`)), 120_000);
      const read = (chunk: Buffer) => {
        output += chunk.toString();
        const match = /open (http:\/\/\S+\/) and press/.exec(output);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      };
      child.stdout!.on('data', read);
      child.stderr!.on('data', read);
      child.once('exit', (code) => reject(new Error(`shoal agent exited with ${code}: ${output}`)));
    });
    const pid = child.pid!;
    const started = performance.now();
    let next = 0;
    let done = 0;
    let failed = 0;
    // Both readings are taken the same way: every call ended, then a second of quiet.
    const settled = async () => {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      return { rss: rssMb(pid), fds: openFds(pid) };
    };
    const calls = async (upTo: number) => {
      const worker = async () => {
        while (next < upTo) {
          const n = next++;
          await call(url, n, options.callerMs).catch(() => failed++);
          done++;
          options.progress?.(done);
        }
      };
      await Promise.all(Array.from({ length: options.concurrency }, worker));
    };
    await calls(Math.min(options.baselineAfter, options.calls));
    const baseline = await settled();
    await calls(options.calls);
    const end = await settled();
    return {
      calls: done,
      failed,
      seconds: Math.round((performance.now() - started) / 100) / 10,
      rssBaselineMb: baseline.rss,
      rssEndMb: end.rss,
      rssGrowthMb: Math.round((end.rss - baseline.rss) * 10) / 10,
      fdsBaseline: baseline.fds,
      fdsEnd: end.fds,
    };
  } finally {
    child.kill('SIGINT');
    await exited;
  }
}
