import { JobType } from '@livekit/protocol';
import type { DispatchCredentials } from './dispatch-socket.js';
import type { JobRunner } from './jobs.js';
import type { CallAdmission } from '../../../agent/admission.js';

/** What the worker needs of the process's call admission (`CallAdmission` from the agent). */
export type WorkerAdmission = Pick<CallAdmission, 'capacity' | 'active' | 'load' | 'admit' | 'ready' | 'drain'>;

export type WorkerJobType = 'room' | 'publisher' | 'participant';

export const jobTypes: Record<WorkerJobType, JobType> = {
  room: JobType.JT_ROOM,
  publisher: JobType.JT_PUBLISHER,
  participant: JobType.JT_PARTICIPANT,
};

export interface LiveKitWorkerOptions extends DispatchCredentials {
  /**
   * Name the worker registers under. Empty: automatic dispatch (a job for every new room). Set: explicit
   * dispatch only (a dispatch rule, a token's room configuration or `AgentDispatchClient` names it).
   */
  agentName?: string;
  /** One job per room (default), per publisher, or per participant. */
  jobType?: WorkerJobType;
  /** Reported to the server at registration. */
  version?: string;
  /**
   * The process's call admission (shared with other transports in the process, if any): each job holds a
   * slot from acceptance to its end, and its `load()` is the figure reported. Default: its own, of `capacity`.
   */
  admission?: WorkerAdmission;
  /** Calls this process runs at once when no `admission` is given; default: `CallAdmission`'s (per core). */
  capacity?: number;
  /** Load (0..1) from which the worker tells the server it is full (`WS_FULL`); below 1 keeps headroom. */
  loadThreshold?: number;
  /** Identity, display name and attributes of the agent participant in each room it accepts. */
  participant?: { identity?(jobId: string): string; name?: string; attributes?: Record<string, string> };
  runJob: JobRunner;
  /** How often load and status are reported, in ms. */
  loadIntervalMs?: number;
  /** How often the worker pings the server, in ms; a pong missing for 3 intervals drops the socket. */
  pingIntervalMs?: number;
  /** Time allowed between accepting a job and its assignment before the slot is freed, in ms. */
  assignmentTimeoutMs?: number;
  connectTimeoutMs?: number;
  /** Reconnect delays: doubling from `first` up to `max`, with ±20 % jitter. */
  reconnect?: { firstMs?: number; maxMs?: number };
}

export const defaults = {
  agentName: '',
  jobType: 'room' as WorkerJobType,
  version: '0.1.0',
  loadThreshold: 1,
  loadIntervalMs: 2500,
  pingIntervalMs: 10_000,
  assignmentTimeoutMs: 7500,
  connectTimeoutMs: 10_000,
  reconnect: { firstMs: 500, maxMs: 10_000 },
  participantName: 'Shoal agent',
  /** Drain budget on SIGTERM in the CLI, in ms. */
  drainTimeoutMs: 60_000,
};

/** What the worker tells its operator; the CLI prints these, tests assert on them. */
export type WorkerEvent =
  | { type: 'registered'; workerId: string; serverVersion?: string; reconnect: boolean }
  | { type: 'disconnected'; reason: string; retryInMs: number }
  | { type: 'job-offered'; jobId: string; room: string; accepted: boolean; reason?: string }
  | { type: 'job-started'; jobId: string; room: string }
  | { type: 'job-ended'; jobId: string; room: string; error?: string }
  | { type: 'status'; load: number; full: boolean; jobs: number }
  | { type: 'draining'; jobs: number }
  | { type: 'closed' };
