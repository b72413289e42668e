/** Runs `shoal serve` as a separate process on a fresh data directory, for tests and benchmarks that probe it from outside. */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encode } from '@msgpack/msgpack';
import { creditsToMicros, hashKeySecret, openSqliteStores } from '../../src/service/store/index.js';
import { heldMemory } from './inspector-memory.js';
import { clientFrame, openRawWebSocket } from './raw-http.js';
import { shoalEntry } from './shoal-entry.js';

const root = join(import.meta.dirname, '../..');

export interface ServeProcess {
  url: string;
  wsUrl: string;
  dataDir: string;
  child: ChildProcess;
  /** The server's inspector (started with `inspect: true`), for memory figures after a collection. */
  inspectorUrl?: string;
  /** Resident memory of the server process, in MB (Linux /proc). */
  rssMb(): number;
  /** Creates a user with a key and credit (micro-credits) directly in the data directory, as `shoal keys create` does. */
  addUser(id: string, creditMicros: number): Promise<{ id: string; key: string; keyId: string }>;
  revokeKey(keyId: string): Promise<void>;
  balance(id: string): Promise<number>;
  stop(): Promise<number | null>;
}

export async function startServeProcess(options: { dataDir?: string; args?: string[]; inspect?: boolean } = {}): Promise<ServeProcess> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'shoal-serve-'));
  const child = spawn(process.execPath, [...(options.inspect ? ['--inspect=127.0.0.1:0'] : []), shoalEntry(), 'serve', '--port', '0', '--data', dataDir, '--dev-key', 'sk_dev', '--log-level', 'error', ...(options.args ?? [])], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`shoal serve did not start: ${output}`)), 90_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /^listening on (http:\/\/[^\s]+)$/m.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('exit', (code) => reject(new Error(`shoal serve exited with ${code}: ${output}`)));
  });
  const withStores = async <T>(work: (stores: Awaited<ReturnType<typeof openSqliteStores>>) => Promise<T>): Promise<T> => {
    const stores = await openSqliteStores(dataDir, { sweep: false });
    try {
      return await work(stores);
    } finally {
      stores.close();
    }
  };
  const inspectorUrl = /Debugger listening on (ws:\/\/\S+)/.exec(output)?.[1];
  return {
    url,
    ...(inspectorUrl ? { inspectorUrl } : {}),
    wsUrl: url.replace(/^http/, 'ws'),
    dataDir,
    child,
    rssMb: () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024,
    addUser: (id, creditMicros) =>
      withStores(async ({ accounts }) => {
        const key = `sk_${id}_${Math.random().toString(36).slice(2)}`;
        const created = await accounts.createUserWithKey({ id, creditMicros }, { name: `${id}'s key`, secretHash: hashKeySecret(key) });
        return { id, key, keyId: created.key.id };
      }),
    revokeKey: (keyId) => withStores(async ({ accounts }) => void (await accounts.revokeKey(keyId))),
    balance: (id) => withStores(async ({ accounts }) => (await accounts.getUser(id))!.creditMicros),
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve(child.exitCode);
        child.once('exit', (code) => resolve(code));
        child.kill('SIGTERM');
      }),
  };
}

export { creditsToMicros };

/** Live clients that send a long text and then read nothing at the TCP level. */
async function liveSessions(serve: ServeProcess, key: string, count: number, read: boolean, holdMs: number) {
  const sockets = await Promise.all(Array.from({ length: count }, () => openRawWebSocket(serve.url, '/v1/tts/live', { authorization: `Bearer ${key}` })));
  for (const raw of sockets) {
    raw.socket.write(clientFrame(encode({ event: 'start', request: { text: '', format: 'pcm', sample_rate: 44100 } })));
    raw.socket.write(clientFrame(encode({ event: 'text', text: 'This sentence is spoken again and again to fill the socket. '.repeat(300) })));
    raw.socket.write(clientFrame(encode({ event: 'flush' })));
    if (!read) raw.socket.pause();
  }
  await new Promise((resolve) => setTimeout(resolve, holdMs));
  return sockets;
}

/**
 * Server memory one unread live session costs, in MB: four reading sessions first (so engines, encoders and
 * workers for that concurrency exist), then four that stop reading, measured after 20 s. `heldMb` (what the
 * sessions hold after a garbage collection: heap and buffers) needs a server started with `inspect: true`;
 * `rssMb` is the change of resident memory, which also moves with the allocator and the collector's timing.
 */
export async function unreadLiveSessionMb(serve: ServeProcess, key: string): Promise<{ heldMb?: number; rssMb: number }> {
  (await liveSessions(serve, key, 4, true, 8000)).forEach((raw) => raw.socket.destroy());
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const held = async () => (serve.inspectorUrl ? (await heldMemory(serve.inspectorUrl)).heldMb : undefined);
  const heldBefore = await held();
  const rssBefore = serve.rssMb();
  const unread = await liveSessions(serve, key, 4, false, 20_000);
  const heldAfter = await held();
  const perSession = (before: number, after: number) => Math.round(((after - before) / 4) * 10) / 10;
  const rssMb = perSession(rssBefore, serve.rssMb());
  unread.forEach((raw) => raw.socket.destroy());
  return { ...(heldBefore !== undefined && heldAfter !== undefined ? { heldMb: perSession(heldBefore, heldAfter) } : {}), rssMb };
}
