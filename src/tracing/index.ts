export * from './traceparent.js';
