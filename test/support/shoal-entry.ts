import { join } from 'node:path';

const root = join(import.meta.dirname, '../..');

/**
 * The script that starts the `shoal` command line, for `node SCRIPT ARGS`: the compiled copy of the sources that
 * the test run made (test/support/compiled-tree.ts), or the checkout's bin/shoal.js (the sources through tsx)
 * outside vitest. Either way the process runs the sources of this checkout as they are now.
 */
export function shoalEntry(): string {
  const compiled = process.env['SHOAL_TEST_BUILD'];
  return compiled ? join(compiled, 'src', 'cli', 'main.js') : join(root, 'bin', 'shoal.js');
}

/** An example as `node SCRIPT` runs it: compiled, or `examples/NAME.ts` through tsx outside vitest. */
export function exampleCommand(name: string): { file: string; args: string[] } {
  const compiled = process.env['SHOAL_TEST_BUILD'];
  if (compiled) return { file: process.execPath, args: [join(compiled, 'examples', `${name}.js`)] };
  return { file: join(root, 'node_modules', '.bin', 'tsx'), args: [join(root, 'examples', `${name}.ts`)] };
}
