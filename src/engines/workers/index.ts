/** Worker threads sized to the machine, with bounded queues, pinning and cancellation: one layer for every engine. */
export { EngineBusyError } from './errors.js';
export { countFromEnv, defaults as workerPoolDefaults, machineWorkers, type WorkerPoolOptions } from './options.js';
export { WorkerPool, type PinnedWorker, type PoolStats, type RunOptions } from './worker-pool.js';
export { startModuleWorker } from '../module-worker.js';
