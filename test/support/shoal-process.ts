/** Runs the `shoal` command line as a user would, for tests that check how the process ends. */
import { spawn } from 'node:child_process';
import { shoalEntry } from './shoal-entry.js';

/** Runs `shoal ARGS`; kills it if it has not exited `graceMs` after printing its summary (or 90 s in all). */
export function shoal(args: string[], summary: RegExp, graceMs: number): Promise<{ code: number | null; stdout: string; stderr: string; exitAfterSummaryMs: number | undefined }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [shoalEntry(), ...args]);
    let [stdout, stderr] = ['', ''];
    let summaryAt: number | undefined;
    const kill = (ms: number) => setTimeout(() => child.kill('SIGKILL'), ms);
    let timer = kill(90_000);
    child.stdout.on('data', (part: Buffer) => {
      stdout += part.toString();
      if (summaryAt === undefined && summary.test(stdout)) {
        summaryAt = performance.now();
        clearTimeout(timer);
        timer = kill(graceMs);
      }
    });
    child.stderr.on('data', (part: Buffer) => (stderr += part.toString()));
    child.on('exit', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr, exitAfterSummaryMs: summaryAt === undefined ? undefined : performance.now() - summaryAt });
    });
  });
}

export const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
