#!/usr/bin/env node
// npm run test:quick [-- ROOM ...]: the test files of the rooms a change touches, without the slowest ones (which
// npm test runs). Rooms: the arguments, else those of the files changed in the working tree (git status), else all.
// Prints the files it runs; exits with vitest's code.
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';

/** The test files' name prefixes of each room (test/<prefix>-*.test.ts). */
const prefixes = {
  audio: ['audio', 'frame'],
  speech: ['speech'],
  tracing: ['tracing'],
  logging: [],
  optional: [],
  engines: ['engines', 'listening'],
  client: ['client'],
  metrics: ['metrics'],
  pipeline: ['pipeline'],
  service: ['service'],
  agent: ['agent'],
  plugins: ['plugin', 'dialogue'],
  transports: ['transport', 'telephony', 'livekit', 'browser'],
  agents: ['dialogue'],
  testing: ['testing', 'scenario'],
  cli: ['cli', 'talk'],
};

/** Files over ~25 s on 2 shared cores (fresh-clone run, vitest JSON report): npm test runs them. */
const slow = new Set([
  'test/agent-conversation.test.ts',
  'test/agent-service-listen.test.ts',
  'test/engines-asr-isolation.test.ts',
  'test/listening-human-speech.test.ts',
  'test/scenario-suites.test.ts',
  'test/service-store-crash.test.ts',
  'test/talk-cli.test.ts',
]);

function roomOf(path) {
  const [top, second] = path.split('/');
  if (top === 'src' && second in prefixes) return second;
  if (top === 'plugins' || top === 'agents') return top;
  if (top === 'test') {
    const prefix = second?.split(/[-.]/)[0];
    return Object.keys(prefixes).find((room) => prefixes[room].includes(prefix));
  }
  return undefined;
}

function changedRooms() {
  const status = execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], { encoding: 'utf8' });
  const paths = status.split('\n').filter(Boolean).map((line) => line.slice(3).split(' -> ').at(-1));
  return [...new Set(paths.map(roomOf).filter(Boolean))];
}

const asked = process.argv.slice(2);
for (const room of asked) {
  if (!(room in prefixes)) {
    console.error(`test:quick: no room "${room}"; rooms: ${Object.keys(prefixes).join(', ')}`);
    process.exit(2);
  }
}
const rooms = asked.length > 0 ? asked : changedRooms();
const wanted = new Set((rooms.length > 0 ? rooms : Object.keys(prefixes)).flatMap((room) => prefixes[room]));
const files = readdirSync('test')
  .filter((name) => name.endsWith('.test.ts') && (wanted.has(name.split(/[-.]/)[0]) || name.startsWith('architecture-')))
  .map((name) => `test/${name}`)
  .filter((file) => !slow.has(file))
  .sort();
console.error(`test:quick: rooms ${rooms.length > 0 ? rooms.join(', ') : 'all'}: ${files.length} files (${slow.size} slow files left to npm test)`);
const run = spawnSync('npx', ['vitest', 'run', ...files], { stdio: 'inherit' });
process.exit(run.status ?? 1);
