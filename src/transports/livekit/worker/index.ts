export { LiveKitWorker, WorkerRegistrationError, agentNameAttribute } from './livekit-worker.js';
export { DispatchConnectError, dispatchUrl, workerToken, type DispatchCredentials } from './dispatch-socket.js';
export { defaults as workerDefaults, type LiveKitWorkerOptions, type WorkerAdmission, type WorkerEvent, type WorkerJobType } from './worker-options.js';
export type { AssignedJob, JobOutcome, JobRunner, RunningJob } from './jobs.js';
