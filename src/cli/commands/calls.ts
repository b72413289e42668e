import { Command } from 'commander';
import { parsePositiveInteger } from '../parse.js';

export function registerCalls(program: Command): void {
  const calls = program.command('calls').description("the agent's call records (docs/call-records.md)");
  const withStore = (command: Command) => command
      .option('--data-dir <dir>', "the agent's data folder", '.shoal/agent')
      .option('--database <url>', 'the PostgreSQL the agents keep their records in (shoal agent --database)')
      .option('--json', 'print JSON');
  withStore(
    calls
      .command('list')
      .description('the latest calls, newest first')
      .option('--since <when>', 'calls started since: an ISO time or an age such as 2h, 7d')
      .option('--text <words>', 'calls in which these words were said (or in a tool call)')
      .option('--slow <ms>', 'calls with a turn slower than this voice-to-voice', parsePositiveInteger)
      .option('--failed-tools', 'calls in which a tool failed')
      .option('--limit <n>', 'at most this many calls', parsePositiveInteger, 20),
  ).action(async (options) => (await import('../run-calls.js')).listCalls(options));
  withStore(calls.command('show <id>').description('one call: its turns, tools, keypad entries and errors, in order')).action(
    async (id: string, options) => (await import('../run-calls.js')).showCall(id, options),
  );
  withStore(calls.command('export').description('every call (or those --since) as JSON lines, one whole record a line').option('--since <when>', 'an ISO time or an age such as 7d')).action(
    async (options) => (await import('../run-calls.js')).exportCalls(options),
  );
}
