import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import twilio from 'twilio';
import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { parseNumberBetween, parsePort, parsePositiveInteger, parsePositiveNumber } from '../../src/cli/parse.js';
import { shoalEntry } from '../support/shoal-entry.js';

/** `shoal` as a user runs it: careless starts get one clear line, and secrets never reach logs or /metrics. */
const root = join(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'shoal-doors-'));

function shoal(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [shoalEntry(), ...args], { cwd: root, encoding: 'utf8', timeout: 120_000, env: { ...process.env, ...env } });
}

/** Starts a long-running command, waits for `ready` in its output, runs `work`, then stops it; returns all it printed. */
async function running(args: string[], env: Record<string, string>, ready: RegExp, work: (match: RegExpExecArray) => Promise<void>): Promise<string> {
  const child = spawn(process.execPath, [shoalEntry(), ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let output = '';
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    const match = await new Promise<RegExpExecArray>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`did not start: ${output}`)), 90_000);
      const read = (chunk: Buffer) => {
        output += chunk.toString();
        const found = ready.exec(output);
        if (found) {
          clearTimeout(timer);
          resolve(found);
        }
      };
      child.stdout.on('data', read);
      child.stderr.on('data', read);
      child.once('exit', (code) => reject(new Error(`exited with ${code}: ${output}`)));
    });
    await work(match);
  } finally {
    child.kill('SIGINT');
    await exited;
  }
  return output;
}

describe('bin/shoal.js in a checkout', () => {
  it('starts from the TypeScript sources (the other tests start a compiled copy of them)', () => {
    const help = spawnSync(process.execPath, [join(root, 'bin', 'shoal.js'), 'serve', '--help'], { cwd: root, encoding: 'utf8', timeout: 60_000 });
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^Usage: shoal serve \[options\]/);
  });
});

describe('careless starts', () => {
  it('shoal serve on a port in use says so in one line and exits non-zero', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as AddressInfo).port;
    try {
      const result = shoal(['serve', '--port', String(port), '--data', join(dir, 'data'), '--dev-key', 'sk_x', '--log-level', 'silent']);
      expect(result.status).toBe(1);
      expect(result.stderr.trim()).toBe(`shoal: port ${port} on 127.0.0.1 is in use; pick another with --port`);
    } finally {
      holder.close();
    }
  }, 120_000);

  it('numeric options are checked, never taken as NaN', () => {
    const result = shoal(['tts', 'hi', '-o', join(dir, 'x.wav'), '--speed', 'NaN']);
    expect(result.status).not.toBe(0);
    expect(result.stderr.split('\n')[0]).toBe("error: option '--speed <n>' argument 'NaN' is invalid. expected a number from 0.5 to 2.");
    for (const parse of [parsePort, parsePositiveInteger, parsePositiveNumber, parseNumberBetween(0.5, 2)]) {
      for (const value of ['NaN', '', ' ', 'abc', 'Infinity', '-1']) expect(() => parse(value)).toThrow(InvalidArgumentError);
    }
    expect(() => parsePositiveInteger('2.5')).toThrow(/expected a whole number above 0/);
    expect(parseNumberBetween(0.5, 2)('1.25')).toBe(1.25);
  }, 60_000);
});

/** Two agent/service processes at debug level: in `npm run test:reliability`. */
describe.skipIf(process.env.SHOAL_RELIABILITY !== '1')('secrets stay out of logs and /metrics (SHOAL_RELIABILITY=1)', () => {
  const secret = (name: string) => `${name}-${'s3cr3t'.repeat(6)}`;

  it('shoal serve with --dev-key-file, at debug level', async () => {
    const devKey = secret('sk_dev');
    writeFileSync(join(dir, 'dev-key'), `${devKey}\n`, { mode: 0o600 });
    let metrics = '';
    const output = await running(['serve', '--port', '0', '--data', join(dir, 'serve-data'), '--dev-key-file', join(dir, 'dev-key'), '--log-level', 'debug'], {}, /listening on (http:\/\/\S+)/, async ([, url]) => {
      expect((await fetch(`${url}/wallet/self/api-credit`, { headers: { authorization: `Bearer ${devKey}` } })).status).toBe(200);
      expect((await fetch(`${url}/wallet/self/api-credit`, { headers: { authorization: `Bearer ${devKey}x` } })).status).toBe(401);
      metrics = await (await fetch(`${url}/metrics`)).text();
    });
    expect(metrics).toMatch(/shoal_/);
    for (const text of [output, metrics]) expect(text).not.toContain('s3cr3t');
  }, 120_000);

  it('shoal agent with its secrets in files and the environment, at debug level', async () => {
    const files = { token: secret('token'), key: secret('stream-key'), llm: secret('llm') };
    for (const [name, value] of Object.entries(files)) writeFileSync(join(dir, name), value, { mode: 0o600 });
    const env = { SHOAL_STREAM_SECRET: secret('stream-secret'), TWILIO_AUTH_TOKEN: secret('twilio'), TWILIO_ACCOUNT_SID: 'AC0001', SHOAL_API_KEY: secret('api') };
    let metrics = '';
    let twiml = '';
    const args = ['agent', '--port', '0', '--log-level', 'debug', '--public-url', 'https://agent.example.test', '--access-token-file', join(dir, 'token'), '--stream-key-file', join(dir, 'key')];
    const output = await running(args, env, /open (http:\/\/\S+\/) and press/, async ([, url]) => {
      const params = { CallSid: `CA${'9'.repeat(32)}`, From: '+14155550111', To: '+14155550100' };
      const signature = twilio.getExpectedTwilioSignature(env.TWILIO_AUTH_TOKEN, 'https://agent.example.test/twilio/voice', params);
      twiml = await (await fetch(`${url}twilio/voice`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature }, body: new URLSearchParams(params) })).text();
      metrics = await (await fetch(`${url}metrics`)).text();
    });
    expect(twiml).toMatch(/<Connect><Stream/);
    expect(metrics).toMatch(/shoal_/);
    for (const text of [output, metrics]) expect(text).not.toContain('s3cr3t');
    expect(output).toMatch(/stream tokens: signed with SHOAL_STREAM_SECRET/);
  }, 120_000);
});
