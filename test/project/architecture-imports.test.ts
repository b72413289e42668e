import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { exceptions, roomOf, rooms, type Room } from './architecture-rooms.js';

const root = resolve(import.meta.dirname, '../..');

function sourceFiles(folder: string): string[] {
  return readdirSync(join(root, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts'))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)));
}

interface Import {
  from: string;
  to: string;
}

/** Every relative import of a file (static, dynamic, `export … from`, type-only), as repository paths. */
function importsOf(file: string): Import[] {
  const info = ts.preProcessFile(readFileSync(join(root, file), 'utf8'), true, true);
  return info.importedFiles
    .map((imported) => imported.fileName)
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => ({ from: file, to: relative(root, resolve(root, dirname(file), specifier)).replace(/\.js$/, '.ts') }));
}

const files = ['src', 'plugins', 'agents'].flatMap(sourceFiles);
const imports = files.flatMap(importsOf);
const excepted = (i: Import) => exceptions.some((e) => e.from === i.from && e.to === i.to);

/** The strongly connected groups of more than one node (each is a cycle), by Tarjan's algorithm. */
function cycles(graph: Map<string, Set<string>>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (stack.includes(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) === index.get(node)) {
      const group: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        group.push(member);
      } while (member !== node);
      if (group.length > 1 || graph.get(node)?.has(node)) found.push(group.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

function graphOf(edges: ReadonlyArray<{ from: string; to: string }>): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const { from, to } of edges) if (from !== to) graph.set(from, (graph.get(from) ?? new Set()).add(to));
  return graph;
}

describe('import direction (test/project/architecture-rooms.ts)', () => {
  it('reads the imports of every source file', () => {
    expect(files.length).toBeGreaterThan(250);
    expect(imports).toContainEqual({ from: 'src/agent/call-session.ts', to: 'src/agent/caller-input.ts' });
    expect(imports).toContainEqual({ from: 'src/engines/types.ts', to: 'src/speech/index.ts' });
  });

  it('places every source file in a room of the table', () => {
    expect(files.filter((file) => roomOf(file) === undefined)).toEqual([]);
  });

  it('has no import against the table', () => {
    const against = imports
      .filter((i) => !excepted(i))
      .filter((i) => {
        const from = roomOf(i.from)!;
        const to = roomOf(i.to);
        return to !== undefined && from !== to && !(rooms[from] as readonly Room[]).includes(to);
      })
      .map((i) => `${i.from} -> ${i.to} (${roomOf(i.from)} may not import ${roomOf(i.to)})`);
    expect(against).toEqual([]);
  });

  it('keeps the engines, client, service and audio free of the agent, transports and cli', () => {
    const upward = imports.filter(
      (i) => ['engines', 'client', 'service', 'audio', 'speech'].includes(roomOf(i.from)!) && ['agent', 'transports', 'cli', 'plugins', 'agents'].includes(roomOf(i.to) ?? ''),
    );
    expect(upward).toEqual([]);
  });

  it('has no cycle between rooms, in the table or in the imports', () => {
    const table = Object.entries(rooms).flatMap(([from, allowed]) => allowed.map((to) => ({ from, to })));
    expect(cycles(graphOf(table))).toEqual([]);
    const between = imports.filter((i) => !excepted(i)).flatMap((i) => {
      const to = roomOf(i.to);
      return to ? [{ from: roomOf(i.from)!, to }] : [];
    });
    expect(cycles(graphOf(between))).toEqual([]);
  });

  it('has no import cycle between files', () => {
    expect(cycles(graphOf(imports))).toEqual([]);
  });
});
