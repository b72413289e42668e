/** Engine pools: worker threads sized to the machine, with bounded queues, pinning and cancellation; one layer for every engine. */
export { EngineBusyError } from './errors.js';
export { countFromEnv, defaults as enginePoolDefaults, machineWorkers, type EnginePoolOptions } from './options.js';
export { EnginePool, type PinnedWorker, type PoolStats, type RunOptions } from './engine-pool.js';
export { startModuleWorker } from '../module-worker.js';
/** @deprecated renamed `EnginePool`. */
export { EnginePool as WorkerPool } from './engine-pool.js';
/** @deprecated renamed `EnginePoolOptions`. */
export type { EnginePoolOptions as WorkerPoolOptions } from './options.js';
/** @deprecated renamed `enginePoolDefaults`. */
export { defaults as workerPoolDefaults } from './options.js';
