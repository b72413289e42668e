// Bundles the browser demo page's scripts into dist/web/ (run by `npm run build` after tsc), so the installed
// package serves the page without esbuild.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundlePageScripts, findWebRoot, prebuiltPageDir } from '../dist/src/transports/browser/demo-page.js';

const webRoot = findWebRoot(new URL('.', import.meta.url).pathname);
const dir = prebuiltPageDir(webRoot);
mkdirSync(dir, { recursive: true });
for (const [name, code] of await bundlePageScripts(webRoot)) writeFileSync(join(dir, name), code);
console.error(`demo page bundled into ${dir}`);
