/**
 * CPU time of this process's threads, from Linux's /proc/self/task (user + system, ms by thread id); empty
 * elsewhere. The main thread's id is the process id; worker threads (engines) have ids of their own.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Jiffies per second on Linux (USER_HZ, 100 on every mainstream build). */
const ticksPerSecond = 100;

export function threadCpuMs(): Map<number, number> {
  const byThread = new Map<number, number>();
  let tids: string[];
  try {
    tids = readdirSync('/proc/self/task');
  } catch {
    return byThread;
  }
  for (const tid of tids) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      byThread.set(Number(tid), ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return byThread;
}

/**
 * CPU used between two readings: the main thread, the busiest other thread (in the scenario bench, the
 * recognizer's worker) and all other threads together, ms.
 */
export function threadCpuSince(before: Map<number, number>, after = threadCpuMs()): { main: number; busiest_worker: number; other: number } {
  const used = [...after].map(([tid, ms]) => ({ tid, ms: ms - (before.get(tid) ?? 0) }));
  const main = used.find((thread) => thread.tid === process.pid)?.ms ?? 0;
  const workers = used.filter((thread) => thread.tid !== process.pid).sort((a, b) => b.ms - a.ms);
  const busiest = workers[0]?.ms ?? 0;
  return { main, busiest_worker: busiest, other: workers.slice(1).reduce((sum, thread) => sum + thread.ms, 0) };
}
