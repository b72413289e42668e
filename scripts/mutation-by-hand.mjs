#!/usr/bin/env node
// Re-checks the survivors of a Stryker report by hand: each surviving mutant is written into a fresh copy of
// the source and the given tests run against it in a new process. For code whose effect Stryker cannot see
// within one test process (tables or caches built once per process, e.g. the G.711 tables), a mutant that
// "survived" there may be killed here.
//   node scripts/mutation-by-hand.mjs <report.json> <source path> <test file>[,<test file>...]
// Prints one JSON line per mutant ({line, mutator, replacement, status}) and a summary line. Runs niced, in a
// copy under the system temp dir, so the working tree (and Stryker runs copying it) are never touched.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inSandbox, root, runTests } from './mutation-sandbox.mjs';

const [reportPath, sourcePath, testList] = process.argv.slice(2);
if (!reportPath || !sourcePath || !testList) {
  console.error('usage: node scripts/mutation-by-hand.mjs <report.json> <source path> <test file>[,<test file>...]');
  process.exit(2);
}
const report = JSON.parse(readFileSync(reportPath, 'utf8'));
const entry = Object.entries(report.files).find(([file]) => file.endsWith(sourcePath));
if (!entry) {
  console.error(`${sourcePath} is not in ${reportPath}`);
  process.exit(2);
}
const [, result] = entry;
const survivors = result.mutants.filter((m) => m.status === 'Survived');

inSandbox((sandbox) => {
  const original = readFileSync(join(root, sourcePath), 'utf8');
  const lineStarts = [0];
  for (let i = 0; i < original.length; i++) if (original[i] === '\n') lineStarts.push(i + 1);
  // Stryker locations: lines 1-based, columns 1-based.
  const offset = ({ line, column }) => lineStarts[line - 1] + column - 1;

  let killed = 0;
  for (const mutant of survivors) {
    const { start, end } = mutant.location;
    const mutated = original.slice(0, offset(start)) + mutant.replacement + original.slice(offset(end));
    writeFileSync(join(sandbox, sourcePath), mutated);
    const status = runTests(sandbox, testList.split(','));
    if (status !== 'Survived') killed++;
    console.log(JSON.stringify({ line: start.line, mutator: mutant.mutatorName, replacement: mutant.replacement, status }));
  }
  writeFileSync(join(sandbox, sourcePath), original);
  console.log(JSON.stringify({ file: sourcePath, strykerSurvivors: survivors.length, killedByHand: killed }));
});
