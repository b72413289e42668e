/** Starts `shoal` as a child process and waits for the line that names its URL. */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const shoal = fileURLToPath(new URL('../../bin/shoal.js', import.meta.url));

export interface RunningCommand {
  url: string;
  child: ChildProcess;
  /** What it printed so far (stdout and stderr). */
  output(): string;
  /** RSS of the child in MB, read from /proc. */
  rssMb(): number | null;
  stop(): Promise<number | null>;
}

export async function startShoal(args: string[], urlPattern: RegExp, timeoutMs = 120_000): Promise<RunningCommand> {
  const child = spawn(process.execPath, [shoal, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`shoal ${args[0]} did not start within ${timeoutMs} ms:\n${output}`)), timeoutMs);
    const onData = (data: Buffer) => {
      output += String(data);
      const match = urlPattern.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (data: Buffer) => (output += String(data)));
    child.once('exit', (code) => reject(new Error(`shoal ${args[0]} exited with ${code}:\n${output}`)));
  });
  child.stdout!.resume();
  return {
    url,
    child,
    output: () => output,
    rssMb: () => {
      try {
        const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
        const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
        return Number.isFinite(kb) ? Math.round(kb / 102.4) / 10 : null;
      } catch {
        return null;
      }
    },
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve(child.exitCode);
        child.once('exit', (code) => resolve(code));
        child.kill('SIGTERM');
      }),
  };
}
