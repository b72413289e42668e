import { creditsToMicros, formatMicros, hashKeySecret, newKeySecret } from '../service/store/ids.js';
import { openSqliteStores } from '../service/store/sqlite-stores.js';
import { UnknownUserError } from '../service/store/sqlite-account-store.js';

/** Admin commands behind `shoal keys ...` and `shoal credit add`; they open the data directory directly. */

interface DataOption {
  data: string;
}

export interface CreateKeyOptions extends DataOption {
  name: string;
  user?: string;
  expires?: string;
  credit?: number;
}

function print(line: string): void {
  process.stdout.write(`${line}\n`);
}

async function withStores<T>(dataDir: string, work: (stores: Awaited<ReturnType<typeof openSqliteStores>>) => Promise<T>): Promise<T> {
  // The server may be running on this directory: never sweep its in-flight uploads.
  const stores = await openSqliteStores(dataDir, { sweep: false });
  try {
    return await work(stores);
  } finally {
    stores.close();
  }
}

function parseExpiry(value: string | undefined): string | null {
  if (value === undefined) return null;
  const time = Date.parse(value);
  if (Number.isNaN(time)) throw new Error(`--expires: "${value}" is not a date; use ISO 8601 such as 2027-01-31 or 2027-01-31T12:00:00Z`);
  if (time <= Date.now()) throw new Error(`--expires: ${value} is in the past; give a future date`);
  return new Date(time).toISOString();
}

export async function createKey(options: CreateKeyOptions): Promise<void> {
  const name = options.name.trim();
  if (!name) throw new Error('--name: give the key a descriptive name');
  const expiresAt = parseExpiry(options.expires);
  await withStores(options.data, async ({ accounts }) => {
    const secret = newKeySecret();
    const keyInput = { name, secretHash: hashKeySecret(secret), expiresAt };
    const existing = options.user ? await accounts.getUser(options.user) : null;
    const { key, user } = existing
      ? { key: await accounts.createKey({ ...keyInput, userId: existing.id }), user: existing }
      : await accounts.createUserWithKey({ id: options.user, creditMicros: creditsToMicros(options.credit ?? 0) }, keyInput);
    const created = !existing;
    print(`created key ${key.id} "${key.name}" for ${created ? 'new ' : ''}user ${user.id}`);
    print(`credit: ${formatMicros(user.creditMicros)}${key.expiresAt ? `, expires ${key.expiresAt}` : ''}`);
    print('the key is shown once; only its hash is stored:');
    print(secret);
  });
}

export async function listKeys(options: DataOption): Promise<void> {
  await withStores(options.data, async ({ accounts }) => {
    const keys = await accounts.listKeys();
    if (keys.length === 0) {
      print('no API keys yet; create one with `shoal keys create --name NAME`');
      return;
    }
    const now = Date.now();
    for (const key of keys) {
      const state = key.revokedAt
        ? `revoked ${key.revokedAt}`
        : key.expiresAt && Date.parse(key.expiresAt) <= now
          ? `expired ${key.expiresAt}`
          : key.expiresAt
            ? `active until ${key.expiresAt}`
            : 'active';
      print(`${key.id}\tuser ${key.userId}\t"${key.name}"\tcreated ${key.createdAt}\t${state}`);
    }
  });
}

export async function revokeKey(keyId: string, options: DataOption): Promise<void> {
  await withStores(options.data, async ({ accounts }) => {
    if (!(await accounts.revokeKey(keyId))) {
      const known = (await accounts.listKeys()).some((key) => key.id === keyId);
      throw new Error(known ? `key ${keyId} is already revoked` : `no key with id ${keyId}; see \`shoal keys list\``);
    }
    print(`revoked ${keyId}`);
  });
}

export async function addCredit(userId: string, amount: number, options: DataOption): Promise<void> {
  await withStores(options.data, async ({ accounts }) => {
    try {
      const user = await accounts.addCredit(userId, creditsToMicros(amount), `credit added by admin: ${amount}`);
      print(`user ${user.id} credit: ${formatMicros(user.creditMicros)}`);
    } catch (error) {
      if (error instanceof UnknownUserError) throw new Error(`${error.message}; see \`shoal keys list\` for user ids`);
      throw error;
    }
  });
}
