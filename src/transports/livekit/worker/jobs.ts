import type { Job } from '@livekit/protocol';

/** A job the dispatch server assigned to this worker: which room, and how to join it. */
export interface AssignedJob {
  id: string;
  job: Job;
  /** Room server URL from the assignment (the worker's URL when the assignment names none). */
  url: string;
  /** Join token the server minted for the agent participant (identity, name, attributes, agent kind). */
  token: string;
  /** The identity this worker accepted the job under. */
  identity: string;
}

/** How a job ended, as reported to the server in `UpdateJobStatus`. */
export interface JobOutcome {
  /** Absent on success; on failure, what went wrong (shown on the LiveKit dashboard). */
  error?: string;
}

/** A job in progress. */
export interface RunningJob {
  /** Resolves once the agent is in the room (the job is then `JS_RUNNING`); rejects if it could not join. */
  readonly joined: Promise<void>;
  /** Resolves when the call is over, whatever ended it. */
  readonly ended: Promise<JobOutcome>;
  /** Ends the job now (server termination, or a drain that ran out of time). */
  terminate(reason: string): void;
}

/** Starts jobs; the worker calls it once per assignment and never waits on it. */
export type JobRunner = (job: AssignedJob) => RunningJob;
