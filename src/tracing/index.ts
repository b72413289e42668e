export * from './traceparent.js';
export * from './attributes.js';
