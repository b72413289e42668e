/** Starts the speech service (part 1's server) over the SQLite stores, routes and gate of part 2, for HTTP tests. */
import type { FastifyInstance } from 'fastify';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FliteEngine, PocketSphinxEngine, type SpeechRecognitionEngine, type TextToSpeechEngine } from '../../src/engines/index.js';
import { BuiltinVoices, createSpeechService, type ServiceLimits } from '../../src/service/index.js';
import { creditsToMicros, hashKeySecret, openAccountServices, type AccountServices, type AccountServicesOptions, type SqliteStores } from '../../src/service/store/index.js';

export interface TestUser {
  id: string;
  key: string;
}

export interface Harness {
  url: string;
  app: FastifyInstance;
  services: AccountServices<SqliteStores>;
  dataDir: string;
  users: { alice: TestUser; bob: TestUser; carol: TestUser };
  close(): Promise<void>;
}

let tts: TextToSpeechEngine | undefined;
let asr: SpeechRecognitionEngine | undefined;
export const testEngines = {
  tts: () => (tts ??= new FliteEngine()),
  asr: () => (asr ??= new PocketSphinxEngine()),
};

export async function startHarness(options: Partial<Omit<AccountServicesOptions, 'database'>> & { dataDir?: string; limits?: Partial<ServiceLimits> } = {}): Promise<Harness> {
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'shoal-svc-')));
  const services = await openAccountServices(dataDir, { engines: testEngines, ...options });
  const users = {} as Harness['users'];
  for (const name of ['alice', 'bob', 'carol'] as const) {
    const key = `sk_test_${name}`;
    if (!(await services.stores.accounts.getUser(name))) {
      await services.stores.accounts.createUser({ id: name, nickname: name, creditMicros: creditsToMicros(10) });
      await services.stores.accounts.createKey({ userId: name, name: `${name}'s key`, secretHash: hashKeySecret(key) });
    }
    users[name] = { id: name, key };
  }
  const service = await createSpeechService({
    accounts: services.accounts,
    idempotency: services.idempotency,
    voices: new BuiltinVoices(services.voices),
    extraRoutes: [services.routes],
    engines: testEngines,
    logLevel: 'silent',
    ...(options.limits ? { limits: options.limits } : {}),
  });
  const url = await service.listen({ host: '127.0.0.1', port: 0 });
  return {
    url,
    app: service.app,
    services,
    dataDir,
    users,
    async close() {
      await service.close();
      services.close();
    },
  };
}

export const fixture = (name: string) => readFile(new URL(`../fixtures/speech/${name}`, import.meta.url));

/** The smallest valid PNG header, enough for the cover type check. */
export const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);

export function authHeaders(user: TestUser | undefined): Record<string, string> {
  return user ? { authorization: `Bearer ${user.key}` } : {};
}

export interface ModelFormInput {
  type?: string;
  title?: string;
  train_mode?: string;
  voices?: { bytes: Uint8Array; name: string }[];
  visibility?: string;
  description?: string;
  cover?: Uint8Array | null;
  texts?: string[];
  tags?: string[];
  enhance_audio_quality?: string;
  generate_sample?: string;
  extra?: Record<string, string>;
}

export function modelForm(input: ModelFormInput): FormData {
  const form = new FormData();
  const set = (name: string, value: string | undefined) => value !== undefined && form.append(name, value);
  set('type', input.type ?? 'tts');
  set('title', input.title ?? 'My voice');
  set('train_mode', input.train_mode ?? 'fast');
  for (const voice of input.voices ?? []) form.append('voices', new Blob([new Uint8Array(voice.bytes)]), voice.name);
  set('visibility', input.visibility);
  set('description', input.description);
  if (input.cover !== null) form.append('cover_image', new Blob([new Uint8Array(input.cover ?? png)]), 'cover.png');
  for (const text of input.texts ?? []) form.append('texts', text);
  for (const tag of input.tags ?? []) form.append('tags', tag);
  set('enhance_audio_quality', input.enhance_audio_quality);
  set('generate_sample', input.generate_sample);
  for (const [name, value] of Object.entries(input.extra ?? {})) form.append(name, value);
  return form;
}
