/**
 * What a process's heap kept between two heap snapshots: live objects counted by constructor (closures by their
 * function name), with the growth in count and in self size, largest first.
 *
 * Run: npx tsx bench/hosted-density/heap-diff.ts BEFORE.heapsnapshot AFTER.heapsnapshot [--calls N] [--top 40]
 *   --calls N: the calls made between the snapshots; adds the growth per call.
 * Prints one JSON line.
 */
import { readFileSync } from 'node:fs';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
  nodes: number[];
  strings: string[];
}

/** Count and self size of the live objects per `type:name` (e.g. `object:CallSession`, `closure:onFrame`). */
export function countByConstructor(file: string): Map<string, { count: number; bytes: number }> {
  const heap = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
  const fields = heap.snapshot.meta.node_fields;
  const types = heap.snapshot.meta.node_types[0];
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((field) => fields.indexOf(field));
  const counts = new Map<string, { count: number; bytes: number }>();
  for (let at = 0; at < heap.nodes.length; at += fields.length) {
    const type = types[heap.nodes[at + typeAt!]!]!;
    const name = type === 'string' || type === 'concatenated string' || type === 'sliced string' ? '' : heap.strings[heap.nodes[at + nameAt!]!]!;
    const key = `${type}:${name.slice(0, 80)}`;
    const entry = counts.get(key) ?? { count: 0, bytes: 0 };
    entry.count++;
    entry.bytes += heap.nodes[at + sizeAt!]!;
    counts.set(key, entry);
  }
  return counts;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [beforeFile, afterFile] = process.argv.slice(2).filter((arg, i, all) => !arg.startsWith('--') && !all[i - 1]?.startsWith('--'));
  const option = (name: string) => {
    const at = process.argv.indexOf(name);
    return at >= 0 ? Number(process.argv[at + 1]) : undefined;
  };
  if (!beforeFile || !afterFile) throw new Error('usage: heap-diff.ts BEFORE.heapsnapshot AFTER.heapsnapshot [--calls N] [--top 40]');
  const calls = option('--calls');
  const before = countByConstructor(beforeFile);
  const after = countByConstructor(afterFile);
  const growth = [...after]
    .map(([key, { count, bytes }]) => ({ key, count: count - (before.get(key)?.count ?? 0), bytes: bytes - (before.get(key)?.bytes ?? 0) }))
    .filter((row) => row.count !== 0 || row.bytes !== 0)
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, option('--top') ?? 40)
    .map((row) => (calls ? { ...row, count_per_call: Math.round((row.count / calls) * 100) / 100, bytes_per_call: Math.round(row.bytes / calls) } : row));
  const total = (counts: Map<string, { bytes: number }>) => [...counts.values()].reduce((sum, { bytes }) => sum + bytes, 0);
  process.stdout.write(`${JSON.stringify({ bench: 'heap-diff', before_mb: Math.round(total(before) / 2 ** 20 * 10) / 10, after_mb: Math.round(total(after) / 2 ** 20 * 10) / 10, calls: calls ?? null, growth })}\n`);
}
