/**
 * A throwaway PostgreSQL cluster for tests: initdb in a temp folder (as the `postgres` user when running as
 * root, since initdb refuses root), a free loopback port, removed by `close()`. Debian's `postgresql`
 * (installed by `scripts/setup.sh --test`) provides the binaries.
 */
import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

export interface PgCluster {
  /** URL of the cluster's `postgres` database. */
  url: string;
  /** A fresh empty database; its URL. */
  createDatabase(): Promise<string>;
  /** Stops the server (fast shutdown: connections are cut) and leaves it stopped. */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

function binDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((name) => /^\d+$/.test(name)).sort((a, b) => Number(b) - Number(a)) : [];
  const found = versions.map((version) => join(root, version, 'bin')).find((dir) => existsSync(join(dir, 'initdb')));
  if (!found) throw new Error('PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb): run `bash scripts/setup.sh --test`');
  return found;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const quote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;

/** `durable`: keep PostgreSQL's default fsync and synchronous commit (benchmarks); tests turn them off for speed. */
export async function startPgCluster(options: { durable?: boolean } = {}): Promise<PgCluster> {
  const bin = binDir();
  const root = mkdtempSync(join(tmpdir(), 'shoal-pg-'));
  const asRoot = process.getuid?.() === 0;
  const command = (args: string[]) => {
    const line = args.map(quote).join(' ');
    return asRoot ? run('su', ['postgres', '-s', '/bin/sh', '-c', line]) : run('/bin/sh', ['-c', line]);
  };
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const uid = Number(stdout.trim());
    chownSync(root, uid, uid);
  }
  const data = join(root, 'data');
  const port = await freePort();
  await command([join(bin, 'initdb'), '-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const fast = options.durable ? '' : ' -c fsync=off -c synchronous_commit=off -c full_page_writes=off';
  const serverOptions = `-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c max_connections=200${fast}`;
  const start = () => command([join(bin, 'pg_ctl'), '-D', data, '-o', serverOptions, '-l', join(root, 'log'), '-w', 'start']).then(() => {});
  const stop = () => command([join(bin, 'pg_ctl'), '-D', data, '-m', 'fast', '-w', 'stop']).then(() => {});
  await start();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let databases = 0;
  let running = true;
  return {
    url,
    async createDatabase() {
      const name = `test_${process.pid}_${++databases}`;
      const client = new pg.Client(url);
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    async stop() {
      await stop();
      running = false;
    },
    async start() {
      await start();
      running = true;
    },
    async close() {
      if (running) await command([join(bin, 'pg_ctl'), '-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => {});
      rmSync(root, { recursive: true, force: true });
    },
  };
}
