import type { Command } from 'commander';

/** Where call records go without `--data-dir` or `--database`. */
export const defaultDataDir = '.shoal/agent';

/**
 * The call-record options of a command (docs/call-records.md): where records go and whether they are kept;
 * `fleet` adds what a long-running agent needs (PostgreSQL, retention, redaction).
 */
export function addRecordsOptions(command: Command, { fleet }: { fleet: boolean }): Command {
  command
    .option('--data-dir <dir>', 'where call records are kept (SQLite)', defaultDataDir)
    .option('--no-call-records', 'keep no record of calls (default: every call is recorded, see docs/call-records.md)');
  if (!fleet) return command;
  return command
    .option('--database <url>', 'keep call records in this PostgreSQL (postgres://…) instead of --data-dir: agent instances given one URL share one history')
    .option('--keep-calls <age>', 'delete call records older than this (30d, 12h, 90m); default: keep them')
    .option('--redact <kinds>', 'mask digits, cards and/or emails (comma-separated) in stored transcripts and tool arguments')
    .option('--record-audio', "record each call's audio: caller left, agent right, Ogg Opus in the data folder (docs/call-records.md; callers may need to consent)");
}
