/** The bench's three processes: the stand-in service, `shoal agent`, and the callers; and what /proc says of the agent. */
export { shoalBin, startProcess, type Running } from '../capacity/child.js';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const tsx = `${root}node_modules/tsx/dist/cli.mjs`;

/** Runs a TypeScript script through tsx to its end and returns its stdout's last line, parsed. */
export async function runScript<T>(file: string, args: string[]): Promise<T> {
  const child = spawn(process.execPath, [tsx, `${root}${file}`, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  child.stdout.on('data', (data: Buffer) => (output += String(data)));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`${file} exited with ${code}`);
  return JSON.parse(output.trim().split('\n').at(-1)!) as T;
}

/** CPU time (user + system) the process has used, in ms: all its threads. */
export function cpuMs(pid: number): number {
  return statCpuMs(`/proc/${pid}/stat`);
}

/** CPU time the process's main thread (its event loop) has used, in ms: the thread whose id is the process's. */
export function loopCpuMs(pid: number): number {
  return statCpuMs(`/proc/${pid}/task/${pid}/stat`);
}

function statCpuMs(path: string): number {
  const fields = readFileSync(path, 'utf8').split(') ')[1]!.split(' ');
  // utime and stime are fields 14 and 15 of stat, in clock ticks (100 per second on Linux).
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

export function rssMb(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  return Math.round(kb / 102.4) / 10;
}

/** One value of a Prometheus text exposition, or null. */
export function metric(text: string, name: string): number | null {
  const match = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text);
  return match ? Number(match[1]) : null;
}
