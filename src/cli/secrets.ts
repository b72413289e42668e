import { readFileSync } from 'node:fs';
import { InvalidArgumentError, type Command } from 'commander';

/**
 * A secret a command takes: `--NAME VALUE` (shows in `ps`: for trying things out), `--NAME-file FILE` (a file
 * only its owner reads, such as a mounted secret) or an environment variable. Precedence in that order.
 */
export interface SecretSpec {
  /** The flag without dashes, e.g. `api-key`. */
  flag: string;
  /** Environment variables read when neither flag is given, first set wins. */
  env: readonly string[];
  /** What the secret is for, e.g. "API key for --service-url". */
  what: string;
}

/** Adds `--NAME <value>` and `--NAME-file <file>` for the secret. */
export function addSecretOption(command: Command, spec: SecretSpec): Command {
  const env = spec.env.map((name) => `$${name}`).join(' or ');
  return command
    .option(`--${spec.flag} <value>`, `${spec.what}; prefer ${env} or --${spec.flag}-file (a flag's value shows in ps)`)
    .option(`--${spec.flag}-file <file>`, `read --${spec.flag} from this file`, readSecretFile);
}

/** The secret's value from the parsed options, or the environment; undefined when none is set. */
export function secretValue(options: object, spec: SecretSpec, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const key = spec.flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
  const values = options as Record<string, unknown>;
  const given = values[key] ?? values[`${key}File`];
  if (typeof given === 'string' && given) return given;
  for (const name of spec.env) if (env[name]) return env[name];
  return undefined;
}

/** The first line of a secret file, trimmed; a missing or empty file fails the command with a clear message. */
export function readSecretFile(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new InvalidArgumentError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  const secret = text.split(/\r?\n/)[0]!.trim();
  if (!secret) throw new InvalidArgumentError(`${file} is empty; it should hold the secret on its first line`);
  return secret;
}

/** The secrets of the commands, by flag. */
export const secrets = {
  apiKey: { flag: 'api-key', env: ['SHOAL_API_KEY', 'FISH_API_KEY'], what: 'API key for --service-url' },
  serviceKey: { flag: 'service-key', env: ['SHOAL_API_KEY', 'FISH_API_KEY'], what: 'API key for --service-url' },
  llmKey: { flag: 'llm-key', env: ['OPENAI_API_KEY'], what: 'API key for --llm-url (none for most local servers)' },
  accessToken: { flag: 'access-token', env: ['SHOAL_AGENT_TOKEN'], what: 'token browser calls must carry (?access_token=... or Authorization: Bearer)' },
  streamKey: { flag: 'stream-key', env: ['SHOAL_STREAM_KEY'], what: "key carriers' media streams must carry as ?key=... (Telnyx, Plivo, Vonage, Exotel; Twilio without --public-url)" },
  streamSecret: {
    flag: 'stream-secret',
    env: ['SHOAL_STREAM_SECRET'],
    what: "secret Twilio stream tokens are signed with; the same on every instance behind a load balancer (at least 32 characters)",
  },
  twilioAuthToken: { flag: 'twilio-auth-token', env: ['TWILIO_AUTH_TOKEN'], what: "Twilio account's auth token (checks webhook signatures, call control)" },
  database: {
    flag: 'database',
    env: ['DATABASE_URL'],
    what: 'PostgreSQL (postgres://user:pass@host/db) shared by several instances, instead of SQLite in --data',
  },
  redis: {
    flag: 'redis',
    env: ['REDIS_URL'],
    what: 'with --database: keep the per-key request-rate counters in this Redis (redis://host:6379) instead of PostgreSQL',
  },
  devKey: { flag: 'dev-key', env: ['SHOAL_DEV_KEY'], what: 'create this API key (with starting credit) if it does not exist' },
  liveKitApiKey: { flag: 'api-key', env: ['LIVEKIT_API_KEY'], what: 'LiveKit API key' },
  liveKitApiSecret: { flag: 'api-secret', env: ['LIVEKIT_API_SECRET'], what: 'LiveKit API secret' },
} satisfies Record<string, SecretSpec>;
