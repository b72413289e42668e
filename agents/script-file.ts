import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadScript, type DialogueScript } from '../plugins/index.js';

const cache = new Map<string, DialogueScript>();

/**
 * Loads (once per process) a script that ships next to an agent's module. When running compiled code from
 * `dist/agents/...`, where the YAML is not copied, it falls back to the same path under the package's `agents/`.
 */
export function agentScript(moduleUrl: string, fileName: string): DialogueScript {
  const beside = fileURLToPath(new URL(fileName, moduleUrl));
  const file = existsSync(beside) ? beside : beside.replace(/([\\/])dist([\\/])agents([\\/])/, '$1agents$3');
  let script = cache.get(file);
  if (!script) {
    script = loadScript(file);
    cache.set(file, script);
  }
  return script;
}
