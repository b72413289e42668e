/**
 * Vitest setup file: the engines' worker threads start from the run's compiled copy of the sources
 * (test/support/compiled-tree.ts) rather than each loading tsx, as the `shoal` processes the tests start do.
 */
import { join, sep } from 'node:path';
import { startWorkersFromCopy } from '../../src/engines/module-worker.js';

const compiled = process.env['SHOAL_TEST_BUILD'];
if (compiled) startWorkersFromCopy({ sources: join(import.meta.dirname, '../..') + sep, compiled: compiled + sep });
