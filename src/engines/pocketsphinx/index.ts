export { PocketSphinxEngine } from './engine.js';
export { defaults as pocketSphinxDefaults, type PocketSphinxOptions } from './options.js';
