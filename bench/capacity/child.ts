/** Starts child processes (`shoal`, or any Node script) and waits for the line that says they are up. */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
export const shoalBin = `${root}bin/shoal.js`;

export interface Running {
  child: ChildProcess;
  /** The first match of the start pattern's group. */
  found: string;
  /** What it printed so far (stdout and stderr). */
  output(): string;
  stop(): Promise<number | null>;
}

/** Runs `node [nodeFlags] file args` from the repository root and waits until its output matches `pattern`. */
export async function startProcess(file: string, args: string[], pattern: RegExp, nodeFlags: string[] = [], timeoutMs = 120_000): Promise<Running> {
  const child = spawn(process.execPath, [...nodeFlags, file, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const found = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${file} did not start within ${timeoutMs} ms:\n${output}`)), timeoutMs);
    const onData = (data: Buffer) => {
      output += String(data);
      const match = pattern.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${file} exited with ${code}:\n${output}`)));
  });
  return {
    child,
    found,
    output: () => output,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve(child.exitCode);
        child.once('exit', (code) => resolve(code));
        child.kill('SIGTERM');
      }),
  };
}

export interface RunningCommand {
  url: string;
  child: ChildProcess;
  /** What it printed so far (stdout and stderr). */
  output(): string;
  /** RSS of the child in MB, read from /proc. */
  rssMb(): number | null;
  stop(): Promise<number | null>;
}

/** Starts `shoal ARGS` and waits for the line that names its URL (`urlPattern`'s group). */
export async function startShoal(args: string[], urlPattern: RegExp, timeoutMs = 120_000, nodeFlags: string[] = []): Promise<RunningCommand> {
  const { child, found, output, stop } = await startProcess(shoalBin, args, urlPattern, nodeFlags, timeoutMs);
  return {
    url: found,
    child,
    output,
    rssMb: () => {
      try {
        const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
        const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
        return Number.isFinite(kb) ? Math.round(kb / 102.4) / 10 : null;
      } catch {
        return null;
      }
    },
    stop,
  };
}
