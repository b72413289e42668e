/**
 * Summarises a V8 `.cpuprofile` (from `node --cpu-prof`): self time by function and by file, top first; prints JSON.
 * Run: npx tsx bench/cpu-profile.ts FILE.cpuprofile [--top 25] [--skip-ms 0]
 *   --skip-ms: leave out the profile's first milliseconds (start-up, module loading).
 *   by_owner: each sample's self time charged to the nearest frame of this repository's own code (src/, plugins/,
 *   bench/, test/) up its stack: what Shoal's functions cost with the library and runtime work they cause.
 *   --callers NAME: also the call stacks (5 frames up) under which functions named NAME spent their self time.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  children?: number[];
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

const argument = (name: string) => {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
};
const file = process.argv[2];
if (!file || file.startsWith('--')) {
  process.stderr.write('usage: npx tsx bench/cpu-profile.ts FILE.cpuprofile [--top 25] [--skip-ms 0]\n');
  process.exit(2);
}
const top = Number(argument('--top') ?? 25);
const skipUs = Number(argument('--skip-ms') ?? 0) * 1000;

const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const shortUrl = (url: string) => url.replace(/^file:\/\//, '').replace(/^.*\/node_modules\//, 'node_modules/').replace(process.cwd() + '/', '') || '(native)';

const parents = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
const callersOf = argument('--callers');
const frameName = (node: ProfileNode) => `${node.callFrame.functionName || '(anonymous)'} ${shortUrl(node.callFrame.url)}:${node.callFrame.lineNumber + 1}`;
const stack = (id: number) => {
  const names = [];
  for (let at = parents.get(id); at !== undefined && names.length < 5; at = parents.get(at)) names.push(frameName(byId.get(at)!));
  return names.join(' < ');
};
const byCallers = new Map<string, number>();
const ownCode = /\/(src|plugins|bench|test)\/[^/]/;
const owners = new Map<number, string>();
const ownerOf = (id: number): string => {
  let owner = owners.get(id);
  if (owner === undefined) {
    const node = byId.get(id)!;
    const parent = parents.get(id);
    owner = ownCode.test(node.callFrame.url) && !node.callFrame.url.includes('/node_modules/') ? frameName(node) : parent === undefined ? '(outside own code)' : ownerOf(parent);
    owners.set(id, owner);
  }
  return owner;
};
const byOwner = new Map<string, number>();

const byFunction = new Map<string, number>();
const byFile = new Map<string, number>();
let elapsedUs = 0;
let totalUs = 0;
let idleUs = 0;
profile.samples.forEach((id, index) => {
  const delta = profile.timeDeltas[index] ?? 0;
  elapsedUs += delta;
  if (elapsedUs < skipUs) return;
  const frame = byId.get(id)!.callFrame;
  const where = shortUrl(frame.url);
  const name = `${frame.functionName || '(anonymous)'} ${where}${frame.url ? `:${frame.lineNumber + 1}` : ''}`;
  totalUs += delta;
  if (frame.functionName === '(idle)') idleUs += delta;
  else {
    byFunction.set(name, (byFunction.get(name) ?? 0) + delta);
    byFile.set(where, (byFile.get(where) ?? 0) + delta);
    byOwner.set(ownerOf(id), (byOwner.get(ownerOf(id)) ?? 0) + delta);
    if (frame.functionName === callersOf) byCallers.set(stack(id), (byCallers.get(stack(id)) ?? 0) + delta);
  }
});

const ranked = (map: Map<string, number>) =>
  [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, us]) => ({ name, self_ms: Math.round(us / 100) / 10, share: `${Math.round((us / (totalUs - idleUs)) * 1000) / 10} %` }));
process.stdout.write(
  `${JSON.stringify({ profile: file, window_ms: Math.round(totalUs / 1000), busy_ms: Math.round((totalUs - idleUs) / 1000), by_function: ranked(byFunction), by_file: ranked(byFile), by_owner: ranked(byOwner), ...(callersOf ? { callers: ranked(byCallers) } : {}) }, null, 1)}\n`,
);
