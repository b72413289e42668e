import { Command } from 'commander';
import { parsePositiveNumber } from '../parse.js';
import { addSecretOption, secretValue, secrets } from '../secrets.js';

/** The store a keys or credit command works on: `--database` (or its file, or DATABASE_URL), else `--data`. */
function withStore(command: Command): Command {
  return addSecretOption(command.option('--data <dir>', 'service data directory', '.shoal/data'), secrets.database);
}

function storeOptions(options: { data: string }): { data: string; database?: string } {
  const database = secretValue(options, secrets.database);
  return { data: options.data, ...(database ? { database } : {}) };
}

export function registerKeys(program: Command): void {
  const keys = program.command('keys').description('manage API keys of the self-hosted service');
  withStore(
    keys
      .command('create')
      .description('create an API key (prints the key once; only its hash is stored)')
      .requiredOption('--name <name>', 'descriptive name of the key')
      .option('--user <id>', 'user the key belongs to (created if absent)')
      .option('--expires <date>', 'expiry date (ISO 8601)')
      .option('--credit <amount>', 'starting credit for a new user', parsePositiveNumber),
  ).action(async (options) => (await import('../run-keys.js')).createKey({ ...options, ...storeOptions(options) }));
  withStore(keys.command('list').description('list API keys (names, users, expiry; never the keys)')).action(
    async (options) => (await import('../run-keys.js')).listKeys(storeOptions(options)),
  );
  withStore(keys.command('revoke <keyId>').description('revoke an API key by its id')).action(
    async (keyId: string, options) => (await import('../run-keys.js')).revokeKey(keyId, storeOptions(options)),
  );
}

export function registerCredit(program: Command): void {
  const credit = program.command('credit').description('manage API credit of the self-hosted service');
  withStore(credit.command('add <userId> <amount>').description('add credit to a user')).action(
    async (userId: string, amount: string, options) =>
      (await import('../run-keys.js')).addCredit(userId, parsePositiveNumber(amount), storeOptions(options)),
  );
}
