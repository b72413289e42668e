import { afterEach, describe, expect, it } from 'vitest';
import { JobStatus, JobType, WorkerStatus } from '@livekit/protocol';
import { CallAdmission } from '../../src/agent/index.js';
import {
  DispatchConnectError,
  LiveKitWorker,
  type AssignedJob,
  type JobOutcome,
  type LiveKitWorkerOptions,
  type RunningJob,
  type WorkerEvent,
} from '../../src/transports/livekit/index.js';
import { DispatchServerDouble } from '../support/livekit-dispatch-double.js';

/** A job whose joining and ending the test controls. */
class JobDouble implements RunningJob {
  readonly joined: Promise<void>;
  readonly ended: Promise<JobOutcome>;
  join!: () => void;
  end!: (outcome?: JobOutcome) => void;
  terminatedWith: string | undefined;
  constructor(readonly assigned: AssignedJob) {
    this.joined = new Promise((resolve) => (this.join = resolve));
    this.ended = new Promise((resolve) => (this.end = (outcome = {}) => resolve(outcome)));
  }
  terminate(reason: string): void {
    this.terminatedWith = reason;
    this.end();
  }
}

let server: DispatchServerDouble;
let worker: LiveKitWorker | undefined;
const jobs: JobDouble[] = [];
const events: WorkerEvent[] = [];

async function startWorker(options: Partial<LiveKitWorkerOptions> = {}): Promise<LiveKitWorker> {
  server = await DispatchServerDouble.start();
  worker = new LiveKitWorker({
    url: server.url,
    apiKey: server.apiKey,
    apiSecret: server.apiSecret,
    runJob: (assigned) => {
      const job = new JobDouble(assigned);
      jobs.push(job);
      return job;
    },
    reconnect: { firstMs: 20, maxMs: 50 },
    loadIntervalMs: 100,
    ...options,
  });
  worker.events$.subscribe((event) => events.push(event));
  await worker.start();
  return worker;
}

afterEach(async () => {
  await worker?.close();
  await server?.close();
  worker = undefined;
  jobs.length = 0;
  events.length = 0;
});

describe('LiveKit worker on the agent dispatch protocol', () => {
  it('registers with a bearer token carrying the agent grant, its name, job type and agent permission', async () => {
    await startWorker({ agentName: 'receptionist', jobType: 'publisher', version: '1.2.3' });
    const [register] = server.of('register');
    expect(register).toMatchObject({ agentName: 'receptionist', type: JobType.JT_PUBLISHER, version: '1.2.3' });
    expect(register!.allowedPermissions).toMatchObject({ agent: true, canPublish: true, canSubscribe: true, canPublishData: true });
    expect(worker!.workerId).toBe('W_1');
    expect(server.refused).toEqual([]);
  });

  it('fails to start with a clear error when the API secret is wrong, and changes nothing', async () => {
    server = await DispatchServerDouble.start();
    const bad = new LiveKitWorker({ url: server.url, apiKey: server.apiKey, apiSecret: 'not-the-secret-not-the-secret-0000', runJob: () => { throw new Error('no job expected'); } });
    const failure = await bad.start().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(DispatchConnectError);
    expect((failure as DispatchConnectError).status).toBe(401);
    expect(server.refused[0]).toMatch(/invalid token/);
    expect(server.received).toEqual([]);
    await bad.close();
  });

  it('accepts a job with the agent identity and attributes, runs it on assignment and reports its status', async () => {
    await startWorker({ agentName: 'support', participant: { name: 'Support bot', attributes: { team: 'billing' } } });
    server.offer('AJ_1', 'call-1', 'support');
    const [answer] = await server.until(() => server.of('availability').length > 0 && server.of('availability'));
    expect(answer).toMatchObject({
      jobId: 'AJ_1',
      available: true,
      participantIdentity: 'agent-AJ_1',
      participantName: 'Support bot',
      participantAttributes: { team: 'billing', 'lk.agent.name': 'support' },
    });
    server.assign('AJ_1', 'call-1', 'token-for-AJ_1');
    await server.until(() => jobs.length === 1);
    expect(jobs[0]!.assigned).toMatchObject({ id: 'AJ_1', url: server.url, token: 'token-for-AJ_1', identity: 'agent-AJ_1' });
    expect(jobs[0]!.assigned.job.room?.name).toBe('call-1');

    jobs[0]!.join();
    await server.until(() => server.of('updateJob').some((u) => u.status === JobStatus.JS_RUNNING));
    expect(worker!.activeJobs).toBe(1);
    jobs[0]!.end();
    const done = await server.until(() => server.of('updateJob').find((u) => u.status === JobStatus.JS_SUCCESS));
    expect(done.jobId).toBe('AJ_1');
    expect(worker!.activeJobs).toBe(0);
  });

  it('reports a failed job with its error', async () => {
    await startWorker();
    server.offer('AJ_F', 'room-f');
    await server.until(() => server.of('availability').length);
    server.assign('AJ_F', 'room-f');
    await server.until(() => jobs.length);
    jobs[0]!.end({ error: 'could not join the room: 401' });
    const failed = await server.until(() => server.of('updateJob').find((u) => u.status === JobStatus.JS_FAILED));
    expect(failed).toMatchObject({ jobId: 'AJ_F', error: 'could not join the room: 401' });
  });

  it('runs many jobs in one process, reports load as jobs over capacity, and says WS_FULL past the threshold', async () => {
    await startWorker({ capacity: 3 });
    for (const n of [1, 2, 3]) {
      server.offer(`AJ_${n}`, `room-${n}`);
      await server.until(() => server.of('availability').length === n);
      server.assign(`AJ_${n}`, `room-${n}`);
    }
    await server.until(() => jobs.length === 3);
    const full = await server.until(() => server.of('updateWorker').find((u) => u.status === WorkerStatus.WS_FULL));
    expect(full.load).toBe(1);
    server.offer('AJ_4', 'room-4');
    const refusal = await server.until(() => server.of('availability').find((a) => a.jobId === 'AJ_4'));
    expect(refusal.available).toBe(false);
    expect(jobs).toHaveLength(3);

    const before = server.of('updateWorker').length;
    jobs[0]!.end();
    const freed = await server.until(() => server.of('updateWorker').slice(before).find((u) => u.status === WorkerStatus.WS_AVAILABLE));
    expect(freed.load).toBeCloseTo(2 / 3, 5);
    expect(freed.jobCount).toBe(2);
  });

  it('says WS_FULL from the load threshold, keeping the rest of the capacity in reserve', async () => {
    await startWorker({ capacity: 4, loadThreshold: 0.5 });
    for (const n of [1, 2]) {
      server.offer(`AJ_${n}`, `room-${n}`);
      await server.until(() => server.of('availability').length === n);
    }
    const full = await server.until(() => server.of('updateWorker').find((u) => u.status === WorkerStatus.WS_FULL));
    expect(full.load).toBe(0.5);
    server.offer('AJ_3', 'room-3');
    expect((await server.until(() => server.of('availability').find((a) => a.jobId === 'AJ_3'))).available).toBe(false);
  });

  it("reports the process's call admission, shared with calls from other transports", async () => {
    const admission = new CallAdmission({ maxCalls: 2 });
    const browserCall = admission.admit()!;
    await startWorker({ admission });
    const first = await server.until(() => server.of('updateWorker')[0]);
    expect(first).toMatchObject({ load: 0.5, status: WorkerStatus.WS_AVAILABLE });
    server.offer('AJ_1', 'room-1');
    await server.until(() => server.of('availability').length);
    expect(admission.active).toBe(2);
    const full = await server.until(() => server.of('updateWorker').find((u) => u.status === WorkerStatus.WS_FULL));
    expect(full.load).toBe(1);
    server.offer('AJ_2', 'room-2');
    expect((await server.until(() => server.of('availability').find((a) => a.jobId === 'AJ_2'))).available).toBe(false);
    browserCall.release();
    server.offer('AJ_3', 'room-3');
    expect((await server.until(() => server.of('availability').find((a) => a.jobId === 'AJ_3'))).available).toBe(true);
  });

  it('counts a job from acceptance, and frees the slot when no assignment follows', async () => {
    await startWorker({ capacity: 1, assignmentTimeoutMs: 150 });
    server.offer('AJ_A', 'room-a');
    await server.until(() => server.of('availability').length === 1);
    server.offer('AJ_B', 'room-b');
    const refused = await server.until(() => server.of('availability').find((a) => a.jobId === 'AJ_B'));
    expect(refused.available).toBe(false);
    await server.until(() => worker!.activeJobs === 0);
    server.assign('AJ_A', 'room-a'); // too late: the server has given it to another worker
    server.offer('AJ_C', 'room-c');
    const accepted = await server.until(() => server.of('availability').find((a) => a.jobId === 'AJ_C'));
    expect(accepted.available).toBe(true);
    expect(jobs).toHaveLength(0);
  });

  it('ends a job the server terminates', async () => {
    await startWorker();
    server.offer('AJ_T', 'room-t');
    await server.until(() => server.of('availability').length);
    server.assign('AJ_T', 'room-t');
    await server.until(() => jobs.length);
    server.terminate('AJ_T');
    await server.until(() => jobs[0]!.terminatedWith);
    expect(jobs[0]!.terminatedWith).toBe('terminated by the server');
  });

  it('re-registers after the socket drops, keeps its jobs and reports what ended while it was away', async () => {
    await startWorker();
    server.offer('AJ_R', 'room-r');
    await server.until(() => server.of('availability').length);
    server.assign('AJ_R', 'room-r');
    await server.until(() => jobs.length);
    jobs[0]!.join();
    await server.until(() => server.of('updateJob').length);

    server.current.terminate();
    await server.until(() => events.some((e) => e.type === 'disconnected'));
    jobs[0]!.end(); // the call ends while the worker is reconnecting
    expect(jobs[0]!.terminatedWith).toBeUndefined();
    await server.until(() => events.filter((e) => e.type === 'registered').length === 2);
    expect(events.filter((e) => e.type === 'registered').map((e) => (e as { reconnect: boolean }).reconnect)).toEqual([false, true]);
    const reported = await server.until(() => server.of('updateJob').find((u) => u.status === JobStatus.JS_SUCCESS));
    expect(reported.jobId).toBe('AJ_R');
    expect(server.connections).toHaveLength(2);
  });

  it('pings the server and hears its pongs', async () => {
    await startWorker({ pingIntervalMs: 50 });
    const pings = await server.until(() => server.of('ping').length >= 2 && server.of('ping'));
    expect(pings[0]!.timestamp).toBeGreaterThan(0n);
    expect(server.connections).toHaveLength(1);
  });

  it('drains: says WS_FULL, refuses new jobs, lets running calls finish, then closes', async () => {
    await startWorker();
    server.offer('AJ_D', 'room-d');
    await server.until(() => server.of('availability').length);
    server.assign('AJ_D', 'room-d');
    await server.until(() => jobs.length);
    const drained = worker!.drain(5000);
    await server.until(() => server.of('updateWorker').find((u) => u.status === WorkerStatus.WS_FULL));
    server.offer('AJ_E', 'room-e');
    const refusal = await server.until(() => server.of('availability').find((a) => a.jobId === 'AJ_E'));
    expect(refusal.available).toBe(false);
    jobs[0]!.end();
    expect(await drained).toEqual({ finished: 1, terminated: 0 });
    expect(jobs[0]!.terminatedWith).toBeUndefined();
    expect(server.of('updateJob').at(-1)).toMatchObject({ jobId: 'AJ_D', status: JobStatus.JS_SUCCESS });
    expect(events.at(-1)).toEqual({ type: 'closed' });
  });

  it('ends the calls still running when the drain runs out of time', async () => {
    await startWorker();
    server.offer('AJ_S', 'room-s');
    await server.until(() => server.of('availability').length);
    server.assign('AJ_S', 'room-s');
    await server.until(() => jobs.length);
    expect(await worker!.drain(100)).toEqual({ finished: 0, terminated: 1 });
    expect(jobs[0]!.terminatedWith).toBe('worker drain timed out');
  });
});
