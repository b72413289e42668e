import { Command } from 'commander';
import { parsePositiveNumber } from '../parse.js';

export function registerKeys(program: Command): void {
  const keys = program.command('keys').description('manage API keys of the self-hosted service');
  keys
    .command('create')
    .description('create an API key (prints the key once; only its hash is stored)')
    .requiredOption('--name <name>', 'descriptive name of the key')
    .option('--user <id>', 'user the key belongs to (created if absent)')
    .option('--expires <date>', 'expiry date (ISO 8601)')
    .option('--credit <amount>', 'starting credit for a new user', parsePositiveNumber)
    .option('--data <dir>', 'service data directory', '.shoal/data')
    .action(async (options) => (await import('../run-keys.js')).createKey(options));
  keys
    .command('list')
    .description('list API keys (names, users, expiry; never the keys)')
    .option('--data <dir>', 'service data directory', '.shoal/data')
    .action(async (options) => (await import('../run-keys.js')).listKeys(options));
  keys
    .command('revoke <keyId>')
    .description('revoke an API key by its id')
    .option('--data <dir>', 'service data directory', '.shoal/data')
    .action(async (keyId: string, options) => (await import('../run-keys.js')).revokeKey(keyId, options));
}

export function registerCredit(program: Command): void {
  const credit = program.command('credit').description('manage API credit of the self-hosted service');
  credit
    .command('add <userId> <amount>')
    .description('add credit to a user')
    .option('--data <dir>', 'service data directory', '.shoal/data')
    .action(async (userId: string, amount: string, options) =>
      (await import('../run-keys.js')).addCredit(userId, parsePositiveNumber(amount), options),
    );
}
