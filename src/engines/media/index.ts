/** Audio work off the event loop: encoders, decoding and voice analysis on one pool of worker threads. */
export { MediaPool, defaults as mediaPoolDefaults, type MediaPoolOptions } from './media-pool.js';
export { openEncoder } from './worker-encoder.js';
