import type { Worker } from 'node:worker_threads';

interface Waiter<Reply> {
  worker: Worker;
  resolve: (reply: Reply) => void;
  reject: (error: Error) => void;
}

/**
 * Numbered request/reply over a worker thread that is started on demand. The worker keeps the process
 * alive only while requests are outstanding; if it dies, exactly the requests sent to it fail.
 */
export class WorkerClient<Request extends object, Reply extends { seq: number }> {
  private worker: Worker | undefined;
  private seq = 0;
  private readonly pending = new Map<number, Waiter<Reply>>();

  constructor(
    private readonly start: () => Worker,
    private readonly describe: string,
  ) {}

  get running(): boolean {
    return this.worker !== undefined;
  }

  /** Milliseconds the running worker's thread has spent working (its event loop's active time), 0 when stopped. */
  get activeMs(): number {
    return this.worker?.performance.eventLoopUtilization().active ?? 0;
  }

  /** Sends `body` (moving the buffers in `transfer` rather than copying them) and resolves with the reply. */
  request(body: Request, transfer: readonly ArrayBuffer[] = []): Promise<Reply> {
    const worker = this.ensureWorker();
    const seq = ++this.seq;
    return new Promise<Reply>((resolve, reject) => {
      this.pending.set(seq, { worker, resolve, reject });
      worker.ref();
      worker.postMessage({ ...body, seq }, transfer);
    });
  }

  async stop(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (!worker) return;
    // An unreferenced worker would let the process exit before termination completes.
    worker.ref();
    await worker.terminate();
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = this.start();
    worker.on('message', (reply: Reply) => this.settle(reply));
    worker.on('error', (error) => this.fail(worker, error));
    worker.on('exit', (code) => {
      if (this.worker === worker) this.worker = undefined;
      this.fail(worker, new Error(`${this.describe} worker exited with code ${code}`));
    });
    worker.unref();
    this.worker = worker;
    return worker;
  }

  private settle(reply: Reply): void {
    const waiter = this.pending.get(reply.seq);
    if (!waiter) return;
    this.pending.delete(reply.seq);
    this.unrefIfIdle(waiter.worker);
    waiter.resolve(reply);
  }

  private fail(worker: Worker, error: Error): void {
    for (const [seq, waiter] of this.pending) {
      if (waiter.worker !== worker) continue;
      this.pending.delete(seq);
      waiter.reject(error);
    }
    this.unrefIfIdle(worker);
  }

  private unrefIfIdle(worker: Worker): void {
    if (worker !== this.worker) return;
    for (const waiter of this.pending.values()) if (waiter.worker === worker) return;
    worker.unref();
  }
}
