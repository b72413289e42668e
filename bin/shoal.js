#!/usr/bin/env node
// In a checkout (src/ present) runs the TypeScript sources through tsx; the installed package runs the compiled dist/.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const sources = join(root, 'src', 'cli', 'main.ts');
if (existsSync(sources)) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(sources).href);
} else {
  await import(pathToFileURL(join(root, 'dist', 'src', 'cli', 'main.js')).href);
}
