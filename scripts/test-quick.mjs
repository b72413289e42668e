#!/usr/bin/env node
// npm run test:quick [-- ROOM ...]: the test files of the rooms a change touches, without the slowest ones (which
// npm test runs). Rooms: the arguments, else those of the files changed in the working tree (git status), else all.
// Prints the files it runs; exits with vitest's code.
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';

/** The test folders (test/<folder>/) that check each source room. */
const folders = {
  audio: ['audio'],
  speech: ['speech'],
  tracing: ['tracing'],
  logging: [],
  optional: [],
  engines: ['engines'],
  client: ['client'],
  metrics: ['metrics'],
  pipeline: ['pipeline'],
  service: ['service'],
  agent: ['agent'],
  plugins: ['plugins'],
  transports: ['transports'],
  agents: ['plugins'],
  testing: ['testing'],
  cli: ['cli'],
};

/** Files over ~25 s on 2 shared cores (fresh-clone run, vitest JSON report): npm test runs them. */
const slow = new Set([
  'test/agent/agent-conversation.test.ts',
  'test/agent/agent-service-listen.test.ts',
  'test/engines/engines-asr-isolation.test.ts',
  'test/engines/listening-human-speech.test.ts',
  'test/testing/scenario-suites.test.ts',
  'test/service/service-store-crash.test.ts',
  'test/cli/talk-cli.test.ts',
]);

function roomOf(path) {
  const [top, second] = path.split('/');
  if (top === 'src' && second in folders) return second;
  if (top === 'plugins' || top === 'agents') return top;
  if (top === 'test') return Object.keys(folders).find((room) => folders[room].includes(second));
  return undefined;
}

function changedRooms() {
  const status = execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], { encoding: 'utf8' });
  const paths = status.split('\n').filter(Boolean).map((line) => line.slice(3).split(' -> ').at(-1));
  return [...new Set(paths.map(roomOf).filter(Boolean))];
}

const asked = process.argv.slice(2);
for (const room of asked) {
  if (!(room in folders)) {
    console.error(`test:quick: no room "${room}"; rooms: ${Object.keys(folders).join(', ')}`);
    process.exit(2);
  }
}
const rooms = asked.length > 0 ? asked : changedRooms();
const wanted = new Set([...(rooms.length > 0 ? rooms : Object.keys(folders)).flatMap((room) => folders[room]), 'project']);
const files = [...wanted]
  .flatMap((folder) => readdirSync(`test/${folder}`).filter((name) => name.endsWith('.test.ts')).map((name) => `test/${folder}/${name}`))
  .filter((file) => !slow.has(file) && (!file.startsWith('test/project/') || file.includes('/architecture-')))
  .sort();
console.error(`test:quick: rooms ${rooms.length > 0 ? rooms.join(', ') : 'all'}: ${files.length} files (${slow.size} slow files left to npm test)`);
const run = spawnSync('npx', ['vitest', 'run', ...files], { stdio: 'inherit' });
process.exit(run.status ?? 1);
