/** Reads a process's memory over its inspector (`node --inspect`): collects garbage first, so what is left is what is held. */
import WebSocket from 'ws';

export interface HeldMemory {
  /** V8 heap in use plus memory outside it that JS objects hold (buffers, WASM memories), in MB. */
  heldMb: number;
  rssMb: number;
}

export async function heldMemory(inspectorUrl: string): Promise<HeldMemory> {
  const socket = new WebSocket(inspectorUrl);
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  let seq = 0;
  const call = (method: string, params: Record<string, unknown> = {}) =>
    new Promise<{ result?: { value?: string } }>((resolve) => {
      const id = ++seq;
      const onMessage = (data: WebSocket.RawData) => {
        const message = JSON.parse(String(data)) as { id?: number; result: { result?: { value?: string } } };
        if (message.id !== id) return;
        socket.off('message', onMessage);
        resolve(message.result);
      };
      socket.on('message', onMessage);
      socket.send(JSON.stringify({ id, method, params }));
    });
  try {
    await call('HeapProfiler.collectGarbage');
    const evaluated = await call('Runtime.evaluate', { expression: 'JSON.stringify(process.memoryUsage())', returnByValue: true });
    const usage = JSON.parse(evaluated.result!.value!) as NodeJS.MemoryUsage;
    const mb = (bytes: number) => bytes / 1024 / 1024;
    return { heldMb: mb(usage.heapUsed + usage.external), rssMb: mb(usage.rss) };
  } finally {
    socket.close();
  }
}
