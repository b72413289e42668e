#!/usr/bin/env node
// Lists what the last mutation run left alive, per module, from reports/mutation/mutation.json:
// `node scripts/mutation-survivors.mjs [path-substring]`. Prints one line per surviving or uncovered mutant
// (file:line, mutator, replacement) and a score line per file.
import { readFileSync } from 'node:fs';

const report = JSON.parse(readFileSync(process.argv[3] ?? 'reports/mutation/mutation.json', 'utf8'));
const only = process.argv[2] ?? '';
const alive = new Set(['Survived', 'NoCoverage']);
const detected = new Set(['Killed', 'Timeout']);

for (const [file, result] of Object.entries(report.files)) {
  if (!file.includes(only)) continue;
  const counted = result.mutants.filter((m) => detected.has(m.status) || alive.has(m.status));
  const killed = counted.filter((m) => detected.has(m.status)).length;
  const score = counted.length ? ((100 * killed) / counted.length).toFixed(1) : 'n/a';
  console.log(`${file}: ${score} % (${killed}/${counted.length} detected)`);
  const lines = result.source.split('\n');
  for (const m of result.mutants.filter((m) => alive.has(m.status)).sort((a, b) => a.location.start.line - b.location.start.line)) {
    const line = m.location.start.line;
    const original = lines[line - 1].trim().slice(0, 70);
    console.log(`  ${m.status.padEnd(10)} ${line}: ${m.mutatorName} -> ${JSON.stringify(m.replacement ?? '').slice(0, 60)}   | ${original}`);
  }
}
