import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { CallQuery, CallRecord, CallRecordStore, CallSummary } from '../agent/index.js';
import { openCallStore, parseAge } from './call-records.js';

interface StoreOptions {
  dataDir: string;
  /** PostgreSQL URL the agents keep their records in (`shoal agent --database`). */
  database?: string;
  json?: boolean;
}

/** The call records of `--database` or `--data-dir`; a clear error when a data folder has none yet. */
async function openStore(options: StoreOptions): Promise<CallRecordStore> {
  if (options.database === undefined && !existsSync(join(options.dataDir, 'calls.sqlite'))) {
    throw new Error(`no call records in ${options.dataDir}: run shoal agent (or shoal talk) with --data-dir ${options.dataDir} first`);
  }
  return openCallStore(options);
}

/** `--since`: an ISO time, or an age (`2h`, `7d`) back from now. */
function sinceOf(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (/^\d+\s*[dhms]$/.test(value.trim())) return new Date(Date.now() - parseAge(value).valueOf()).toISOString();
  const time = Date.parse(value);
  if (Number.isNaN(time)) throw new RangeError(`--since takes an ISO time or an age such as 2h or 7d, not "${value}"`);
  return new Date(time).toISOString();
}

function line(call: CallSummary): string {
  const ended = call.finished ? (call.endedBy ?? '') : 'unfinished';
  const slowest = call.slowestTurnMs !== undefined ? `${call.slowestTurnMs} ms` : '-';
  const where = [call.transport.kind, call.transport.carrier, call.transport.from].filter(Boolean).join(' ');
  return `${call.id}  ${call.startedAt}  ${where.padEnd(18)}  ${String(call.turns).padStart(3)} turns  slowest ${slowest.padStart(8)}  ${ended}`;
}

export async function listCalls(options: StoreOptions & { since?: string; text?: string; slow?: number; failedTools?: boolean; limit: number }): Promise<void> {
  const store = await openStore(options);
  try {
    const since = sinceOf(options.since);
    const query: CallQuery = { limit: options.limit, ...(since ? { since } : {}), ...(options.text ? { text: options.text } : {}), ...(options.slow ? { slowerThanMs: options.slow } : {}), ...(options.failedTools ? { failedTools: true } : {}) };
    const page = await store.list(query);
    if (options.json) process.stdout.write(`${JSON.stringify(page)}\n`);
    else if (page.calls.length === 0) process.stdout.write('no calls\n');
    else for (const call of page.calls) process.stdout.write(`${line(call)}\n`);
  } finally {
    await store.close();
  }
}

function describe(record: CallRecord): string[] {
  const out = [`call ${record.id}  trace ${record.traceId}`, `${record.agent} (${record.mode}) over ${JSON.stringify(record.transport)}`, `started ${record.startedAt}${record.endedAt ? `, ended ${record.endedAt}: ${record.endedBy}` : ', unfinished'}`,
    record.charge !== null ? `speech service charge: ${record.charge} credits` : 'speech service charge: none reported',
  ];
  for (const entry of record.entries) {
    const at = `${(entry.atMs / 1000).toFixed(1).padStart(7)} s`;
    if (entry.kind === 'turn') {
      const v2v = entry.metrics.voiceToVoiceMs !== undefined ? ` (${Math.round(entry.metrics.voiceToVoiceMs)} ms)` : '';
      if (entry.userText) out.push(`${at}  caller: ${entry.userText}`);
      out.push(`${at}  agent${v2v}: ${entry.agentText}${entry.interrupted ? ' [interrupted]' : ''}`);
    } else if (entry.kind === 'tool') {
      out.push(`${at}  tool ${entry.name}(${JSON.stringify(entry.arguments)}) -> ${entry.error ? `error: ${entry.error}` : JSON.stringify(entry.result ?? null)}`);
    } else if (entry.kind === 'keypad') out.push(`${at}  keypad: ${entry.digits}`);
    else if (entry.kind === 'interrupted') out.push(`${at}  barge-in after: ${entry.playedText}`);
    else if (entry.kind === 'error') out.push(`${at}  error (${entry.stage}): ${entry.message}`);
    else if (entry.kind === 'charge') out.push(`${at}  speech service charge for recognition: ${entry.sttCharge} credits`);
    else out.push(`${at}  unavailable (${entry.stage}): ${entry.line}`);
  }
  return out;
}

export async function showCall(id: string, options: StoreOptions): Promise<void> {
  const store = await openStore(options);
  try {
    const record = await store.get(id);
    if (!record) throw new Error(`no call ${id} in ${options.database ? 'the database' : options.dataDir} (shoal calls list shows the ids)`);
    process.stdout.write(options.json ? `${JSON.stringify(record)}\n` : `${describe(record).join('\n')}\n`);
  } finally {
    await store.close();
  }
}

export async function exportCalls(options: StoreOptions & { since?: string }): Promise<void> {
  const store = await openStore(options);
  try {
    const since = sinceOf(options.since);
    let before: string | undefined;
    do {
      const page = await store.list({ limit: 500, ...(since ? { since } : {}), ...(before ? { before } : {}) });
      for (const call of page.calls) process.stdout.write(`${JSON.stringify(await store.get(call.id))}\n`);
      before = page.next;
    } while (before);
  } finally {
    await store.close();
  }
}
