import {
  JobStatus,
  ParticipantPermission,
  WorkerStatus,
  type AvailabilityRequest,
  type JobAssignment,
} from '@livekit/protocol';
import { Subject, type Observable } from 'rxjs';
import { CallAdmission, type AdmittedCall } from '../../../agent/admission.js';
import { DispatchSocket, type OutgoingMessage } from './dispatch-socket.js';
import type { RunningJob } from './jobs.js';
import { defaults, jobTypes, type LiveKitWorkerOptions, type WorkerAdmission, type WorkerEvent } from './worker-options.js';

/** The server did not confirm the registration (wrong first message, or none in time). */
export class WorkerRegistrationError extends Error {
  override readonly name = 'WorkerRegistrationError';
}

/** The attribute LiveKit tooling (`lk agent`, the playground) finds the agent participant by. */
export const agentNameAttribute = 'lk.agent.name';

interface Reservation {
  slot: AdmittedCall;
  jobId: string;
  room: string;
  identity: string;
  timer: NodeJS.Timeout;
}

interface ActiveJob {
  slot: AdmittedCall;
  room: string;
  running: RunningJob;
}

/**
 * A worker on LiveKit's agent dispatch: registers over `<url>/agent`, answers availability requests,
 * runs the jobs it is assigned (many per process), reports load and status, and keeps its jobs running
 * through socket drops while it reconnects with backoff.
 */
export class LiveKitWorker {
  readonly events$: Observable<WorkerEvent>;
  private readonly events = new Subject<WorkerEvent>();
  private readonly o: Required<Omit<LiveKitWorkerOptions, 'admission' | 'capacity' | 'participant' | 'reconnect'>>;
  readonly admission: WorkerAdmission;
  private readonly reservations = new Map<string, Reservation>();
  private readonly jobs = new Map<string, ActiveJob>();
  /** Job status updates made while disconnected, sent after the next registration. */
  private readonly unsent: OutgoingMessage[] = [];
  private socket: DispatchSocket | undefined;
  private workerIdValue: string | undefined;
  private reportedFull: boolean | undefined;
  private draining = false;
  /** True while the current socket's registration is confirmed: only then do messages other than `register` go out. */
  private registered = false;
  private closing = false;
  private wake: (() => void) | undefined;
  private running: Promise<void> | undefined;

  constructor(private readonly options: LiveKitWorkerOptions) {
    this.events$ = this.events.asObservable();
    this.admission = options.admission ?? new CallAdmission(options.capacity === undefined ? {} : { maxCalls: options.capacity });
    this.o = {
      ...options,
      agentName: options.agentName ?? defaults.agentName,
      jobType: options.jobType ?? defaults.jobType,
      version: options.version ?? defaults.version,
      loadThreshold: options.loadThreshold ?? defaults.loadThreshold,
      loadIntervalMs: options.loadIntervalMs ?? defaults.loadIntervalMs,
      pingIntervalMs: options.pingIntervalMs ?? defaults.pingIntervalMs,
      assignmentTimeoutMs: options.assignmentTimeoutMs ?? defaults.assignmentTimeoutMs,
      connectTimeoutMs: options.connectTimeoutMs ?? defaults.connectTimeoutMs,
    };
  }

  get workerId(): string | undefined {
    return this.workerIdValue;
  }

  /** Jobs running plus jobs accepted and awaiting assignment. */
  get activeJobs(): number {
    return this.jobs.size + this.reservations.size;
  }

  /** 0..1; the figure sent in `UpdateWorkerStatus.load`: the admission's (calls in progress / capacity). */
  load(): number {
    return this.draining ? 1 : this.admission.load();
  }

  get isFull(): boolean {
    return this.draining || !this.admission.ready || this.load() >= this.o.loadThreshold;
  }

  /**
   * Connects and serves until `close()` or `drain()`. Resolves once the first registration is confirmed;
   * rejects if that first connection fails (later drops are retried with backoff).
   */
  start(): Promise<void> {
    if (this.running) throw new Error('worker already started');
    let first: { resolve(): void; reject(error: unknown): void } | undefined;
    const registered = new Promise<void>((resolve, reject) => (first = { resolve, reject }));
    this.running = this.serve(first!);
    return registered;
  }

  /** Stops taking jobs (`WS_FULL`), waits up to `timeoutMs` for running jobs to end, ends the rest, closes. */
  async drain(timeoutMs: number = defaults.drainTimeoutMs): Promise<{ finished: number; terminated: number }> {
    this.draining = true;
    void this.admission.drain(timeoutMs); // other transports sharing the admission stop taking calls too
    this.events.next({ type: 'draining', jobs: this.jobs.size });
    this.reportStatus();
    for (const reservation of [...this.reservations.values()]) this.release(reservation);
    const running = [...this.jobs.values()];
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
    const outcome = await Promise.race([Promise.all(running.map((job) => job.running.ended)), timedOut]);
    clearTimeout(timer);
    const left = [...this.jobs.values()];
    if (outcome === 'timeout') for (const job of left) job.running.terminate('worker drain timed out');
    await Promise.all(left.map((job) => job.running.ended));
    await this.close();
    return { finished: running.length - left.length, terminated: left.length };
  }

  /** Closes the socket and stops reconnecting; running jobs are left to end on their own. */
  async close(): Promise<void> {
    this.closing = true;
    this.wake?.();
    this.socket?.close();
    await this.running;
  }

  private async serve(first: { resolve(): void; reject(error: unknown): void }): Promise<void> {
    let attempt = 0;
    let registeredOnce = false;
    while (!this.closing) {
      let reason: string;
      try {
        const socket = await DispatchSocket.open(this.options, this.o.connectTimeoutMs);
        this.socket = socket;
        const code = await this.connection(socket, registeredOnce, () => {
          if (!registeredOnce) first.resolve();
          registeredOnce = true;
          attempt = 0;
        });
        reason = `socket closed (${code})`;
      } catch (error) {
        if (!registeredOnce) {
          this.closing = true;
          first.reject(error);
          break;
        }
        reason = error instanceof Error ? error.message : String(error);
      }
      this.socket = undefined;
      this.registered = false;
      if (this.closing) break;
      const delay = this.backoff(attempt++);
      this.events.next({ type: 'disconnected', reason, retryInMs: delay });
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delay);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    for (const reservation of [...this.reservations.values()]) this.release(reservation);
    this.events.next({ type: 'closed' });
    this.events.complete();
  }

  private backoff(attempt: number): number {
    const firstMs = this.options.reconnect?.firstMs ?? defaults.reconnect.firstMs;
    const maxMs = this.options.reconnect?.maxMs ?? defaults.reconnect.maxMs;
    const base = Math.min(maxMs, firstMs * 2 ** attempt);
    return Math.round(base * (0.8 + Math.random() * 0.4));
  }

  /** Registers on one socket and serves it until it closes; returns the close code. */
  private async connection(socket: DispatchSocket, reconnect: boolean, onRegistered: () => void): Promise<number> {
    let lastPong = Date.now();
    let confirm!: { resolve(): void; reject(error: Error): void };
    const registration = new Promise<void>((resolve, reject) => (confirm = { resolve, reject }));
    const subscription = socket.messages$.subscribe({
      next: (message) => {
        const { case: kind, value } = message.message;
        if (!this.registered) {
          if (kind === 'register') {
            this.registered = true;
            this.workerIdValue = value.workerId;
            this.events.next({ type: 'registered', workerId: value.workerId, serverVersion: value.serverInfo?.version, reconnect });
            confirm.resolve();
          } else confirm.reject(new WorkerRegistrationError(`expected a registration response first, got ${kind ?? 'an empty message'}`));
        } else if (kind === 'availability') this.answer(value);
        else if (kind === 'assignment') this.assign(value);
        else if (kind === 'termination') this.jobs.get(value.jobId)?.running.terminate('terminated by the server');
        else if (kind === 'pong') lastPong = Date.now();
      },
      complete: () => confirm.reject(new WorkerRegistrationError('the server closed the socket before confirming registration')),
    });
    socket.send({
      case: 'register',
      value: {
        type: jobTypes[this.o.jobType],
        agentName: this.o.agentName,
        version: this.o.version,
        pingInterval: Math.round(this.o.pingIntervalMs / 1000),
        allowedPermissions: new ParticipantPermission({ canPublish: true, canSubscribe: true, canPublishData: true, canUpdateMetadata: true, agent: true }),
      },
    });
    const timer = setTimeout(() => confirm.reject(new WorkerRegistrationError('no registration response from the server')), this.o.connectTimeoutMs);
    try {
      await registration;
    } catch (error) {
      subscription.unsubscribe();
      socket.close(1002, (error as Error).message);
      throw error;
    } finally {
      clearTimeout(timer);
    }
    onRegistered();
    this.reportedFull = undefined;
    for (const update of this.unsent.splice(0)) socket.send(update);
    this.reportStatus();
    const statusTimer = setInterval(() => this.reportStatus(), this.o.loadIntervalMs);
    const pingTimer = setInterval(() => {
      if (Date.now() - lastPong > 3 * this.o.pingIntervalMs) socket.close(4000, 'no pong from the server');
      else socket.send({ case: 'ping', value: { timestamp: BigInt(Date.now()) } });
    }, this.o.pingIntervalMs);
    try {
      return await socket.closed;
    } finally {
      clearInterval(statusTimer);
      clearInterval(pingTimer);
      subscription.unsubscribe();
    }
  }

  private answer(request: AvailabilityRequest): void {
    const job = request.job;
    if (!job) return;
    const room = job.room?.name ?? '';
    const known = this.jobs.has(job.id) || this.reservations.has(job.id);
    const refuse = this.draining ? 'draining' : known ? 'already running' : this.isFull ? 'full' : undefined;
    const slot = refuse ? undefined : this.admission.admit();
    if (!slot) {
      this.send({ case: 'availability', value: { jobId: job.id, available: false } });
      this.events.next({ type: 'job-offered', jobId: job.id, room, accepted: false, reason: refuse ?? 'full' });
      return;
    }
    const participant = this.options.participant ?? {};
    const identity = participant.identity?.(job.id) ?? `agent-${job.id}`;
    const timer = setTimeout(() => this.release(this.reservations.get(job.id)), this.o.assignmentTimeoutMs);
    this.reservations.set(job.id, { slot, jobId: job.id, room, identity, timer });
    this.send({
      case: 'availability',
      value: {
        jobId: job.id,
        available: true,
        participantIdentity: identity,
        participantName: participant.name ?? defaults.participantName,
        participantAttributes: { ...participant.attributes, [agentNameAttribute]: this.o.agentName },
      },
    });
    this.events.next({ type: 'job-offered', jobId: job.id, room, accepted: true });
    this.reportStatus();
  }

  private assign(assignment: JobAssignment): void {
    const job = assignment.job;
    const reservation = job && this.reservations.get(job.id);
    if (!job || !reservation) return; // not ours, or its slot timed out: the server reassigns it
    clearTimeout(reservation.timer);
    this.reservations.delete(job.id);
    const room = reservation.room;
    let running: RunningJob;
    try {
      running = this.o.runJob({ id: job.id, job, url: assignment.url || this.options.url, token: assignment.token, identity: reservation.identity });
    } catch (error) {
      reservation.slot.release();
      this.finish(job.id, room, { error: error instanceof Error ? error.message : String(error) });
      return;
    }
    this.jobs.set(job.id, { slot: reservation.slot, room, running });
    running.joined.then(
      () => {
        this.send({ case: 'updateJob', value: { jobId: job.id, status: JobStatus.JS_RUNNING } });
        this.events.next({ type: 'job-started', jobId: job.id, room });
      },
      () => undefined, // `ended` reports the failure
    );
    running.ended.then(
      (outcome) => this.finish(job.id, room, outcome),
      (error: unknown) => this.finish(job.id, room, { error: error instanceof Error ? error.message : String(error) }),
    );
  }

  private finish(jobId: string, room: string, outcome: { error?: string }): void {
    this.jobs.get(jobId)?.slot.release();
    this.jobs.delete(jobId);
    const status = outcome.error ? JobStatus.JS_FAILED : JobStatus.JS_SUCCESS;
    this.send({ case: 'updateJob', value: { jobId, status, error: outcome.error ?? '' } }, true);
    this.events.next({ type: 'job-ended', jobId, room, error: outcome.error });
    this.reportStatus();
  }

  private release(reservation: Reservation | undefined): void {
    if (!reservation) return;
    clearTimeout(reservation.timer);
    reservation.slot.release();
    this.reservations.delete(reservation.jobId);
    this.reportStatus();
  }

  private reportStatus(): void {
    const load = this.load();
    const full = this.isFull;
    this.send({
      case: 'updateWorker',
      value: { load, status: full ? WorkerStatus.WS_FULL : WorkerStatus.WS_AVAILABLE, jobCount: this.jobs.size },
    });
    if (full !== this.reportedFull) this.events.next({ type: 'status', load, full, jobs: this.jobs.size });
    this.reportedFull = full;
  }

  /** Sends now; `keep` messages (job outcomes) wait for the next connection when the socket is down. */
  private send(message: OutgoingMessage, keep = false): void {
    if (this.registered && this.socket?.isOpen) this.socket.send(message);
    else if (keep) this.unsent.push(message);
  }
}
