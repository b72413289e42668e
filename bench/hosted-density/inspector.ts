/**
 * The agent process's own memory, read through its inspector (the agent runs with `--inspect=127.0.0.1:0`):
 * garbage collection on demand, `process.memoryUsage()` after it, and heap snapshots written to a file.
 */
import { createWriteStream } from 'node:fs';
import WebSocket from 'ws';

export interface Inspector {
  /** The process's memory in MB as it is (`heap_mb` is what the heap holds, garbage included; `heap_total_mb` what V8 has reserved for it). */
  memory(): Promise<Memory>;
  /** Full garbage collection, then the process's memory in MB. */
  settledMemory(): Promise<Memory>;
  /**
   * Asks glibc's allocator to give the memory it holds free back to the system (`malloc_trim(0)`, through koffi
   * in the agent). RSS that falls after it was free memory the allocator kept, not memory in use. Returns what
   * stopped it, or undefined when it ran.
   */
  trimNativeHeap(): Promise<string | undefined>;
  /** Writes a heap snapshot (V8 collects garbage first) to `file`. */
  snapshot(file: string): Promise<void>;
  close(): void;
}

export interface Memory {
  rss_mb: number;
  heap_mb: number;
  heap_total_mb: number;
  external_mb: number;
  array_buffers_mb: number;
}

const mb = (bytes: number) => Math.round(bytes / 2 ** 20 * 10) / 10;

/** The inspector's WebSocket URL from the `Debugger listening on ws://...` line the process printed. */
export const inspectorUrl = /Debugger listening on (ws:\/\/\S+)/;

export async function connectInspector(url: string): Promise<Inspector> {
  const socket = new WebSocket(url, { perMessageDeflate: false, maxPayload: 2 ** 30 });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  let nextId = 1;
  const pending = new Map<number, { resolve(result: unknown): void; reject(error: Error): void }>();
  const events = new Map<string, (params: Record<string, unknown>) => void>();
  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as { id?: number; method?: string; params?: Record<string, unknown>; result?: unknown; error?: { message: string } };
    if (message.id !== undefined) {
      const waiting = pending.get(message.id);
      pending.delete(message.id);
      if (message.error) waiting?.reject(new Error(message.error.message));
      else waiting?.resolve(message.result);
    } else if (message.method) events.get(message.method)?.(message.params ?? {});
  });
  const send = <T>(method: string, params: Record<string, unknown> = {}) =>
    new Promise<T>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve: resolve as (result: unknown) => void, reject });
      socket.send(JSON.stringify({ id, method, params }));
    });

  const memory = async (): Promise<Memory> => {
    const { result } = await send<{ result: { value: string } }>('Runtime.evaluate', { expression: 'JSON.stringify(process.memoryUsage())' });
    const usage = JSON.parse(result.value) as NodeJS.MemoryUsage;
    return { rss_mb: mb(usage.rss), heap_mb: mb(usage.heapUsed), heap_total_mb: mb(usage.heapTotal), external_mb: mb(usage.external), array_buffers_mb: mb(usage.arrayBuffers) };
  };

  return {
    memory,
    async settledMemory() {
      await send('HeapProfiler.collectGarbage');
      await send('HeapProfiler.collectGarbage');
      return memory();
    },
    async trimNativeHeap() {
      const expression = `(() => {
        try {
          const require = process.getBuiltinModule('module').createRequire(process.cwd() + '/');
          require('koffi').load('libc.so.6').func('int malloc_trim(size_t)')(0);
          return '';
        } catch (error) {
          return String(error);
        }
      })()`;
      const { result } = await send<{ result: { value: string } }>('Runtime.evaluate', { expression });
      return result.value || undefined;
    },
    async snapshot(file) {
      const out = createWriteStream(file);
      events.set('HeapProfiler.addHeapSnapshotChunk', (params) => out.write(params['chunk'] as string));
      await send('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
      events.delete('HeapProfiler.addHeapSnapshotChunk');
      await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
    },
    close: () => socket.close(),
  };
}
