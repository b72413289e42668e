/** Runs `shoal agent` as a user would, for tests that check how the process ends. */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { alive } from './shoal-process.js';
import { shoalEntry } from './shoal-entry.js';

/**
 * Starts `shoal agent ARGS`, waits for its page's URL, checks that the process whose id is in `pidFile` (an MCP
 * server the agent started) runs, sends `signal`, and resolves to how the agent ended and that process's id.
 */
export async function startAndStopAgent(args: string[], signal: NodeJS.Signals, pidFile: string): Promise<{ code: number | null; signal: NodeJS.Signals | null; serverPid: number; output: string }> {
  const child = spawn(process.execPath, [shoalEntry(), 'agent', '--port', '0', '--log-level', 'silent', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => child.once('exit', (code, signal) => done({ code, signal })));
  let output = '';
  try {
    await new Promise<void>((ready, fail) => {
      const timer = setTimeout(() => fail(new Error(`no URL line; got ${output}`)), 60_000);
      const read = (chunk: Buffer) => {
        output += chunk.toString();
        if (/open http:\/\/\S+ and press/.test(output)) {
          clearTimeout(timer);
          ready();
        }
      };
      child.stdout.on('data', read);
      child.stderr.on('data', read);
      void exited.then((end) => fail(new Error(`exited early (${JSON.stringify(end)}): ${output}`)));
    });
    const serverPid = Number(readFileSync(pidFile, 'utf8'));
    if (!alive(serverPid)) throw new Error(`the MCP server ${serverPid} is not running while the agent is`);
    child.kill(signal);
    // An agent that does not stop (an MCP server left running keeps it alive) is killed and reported as such.
    const stuck = setTimeout(() => child.kill('SIGKILL'), 20_000);
    const end = await exited.finally(() => clearTimeout(stuck));
    return { ...end, serverPid, output };
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}
