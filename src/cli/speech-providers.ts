import { isProviderError, parseProviderChoices, type ProviderChoice, type ProviderDescriptor, type ProviderSettings, type SttChoice, type TtsChoice } from '../agent/index.js';
import { knownProviderNames, speechProvider } from '../../plugins/providers.js';
import type { ProviderCommandOptions } from './provider-options.js';
import type { AsrChoice } from './speech-engines.js';

/** A `--stt`/`--tts` choice the command line cannot build: one line, no stack trace. */
export class ProviderSetupError extends Error {
  override readonly name = 'ProviderSetupError';
}

const names = knownProviderNames.join(', ');

/** The stack's recognisers and synthesisers from the options, and the start-up line that says what runs where. */
export interface SpeechChoice {
  stt: SttChoice[];
  tts: TtsChoice[];
  /** `serviceRecognition`: how the service recognises (`/v1/listen` once the service was found to have that socket). */
  describe(serviceUrl: string | undefined, serviceRecognition?: '/v1/listen' | '/v1/asr'): string;
  /** True when recognition runs in this process first (pocketsphinx): the calls cost what embedded ones do. */
  embeddedRecognition: boolean;
  /** True when a `service` provider is chosen: only then is the speech service started (or reached). */
  usesService: boolean;
  /**
   * Asks each chosen provider that allows it whether it takes the key (`ProviderDescriptor.checkKey`), at once. A
   * rejected key is a `ProviderSetupError` naming the variable, or a `warn` line when a provider after it in the
   * list takes over; a provider that cannot be asked now is a `warn` line (failover decides at the first call).
   */
  checkKeys(warn: (line: string) => void, timeoutMs?: number): Promise<void>;
}

interface KeyCheck {
  descriptor: ProviderDescriptor;
  settings: ProviderSettings;
  /** Another provider after it in its list takes over when this one fails. */
  hasFallback: boolean;
}

/**
 * Builds the choice of `--stt`/`--tts` (`--asr` when `--stt` is absent). A provider not in this build, an unknown
 * name or a missing key is a `ProviderSetupError` naming what to do.
 */
export function speechChoice(options: ProviderCommandOptions & { asr?: AsrChoice; serviceUrl?: string }): SpeechChoice {
  const sttList = options.stt ? parse(options.stt, '--stt') : [{ name: options.asr ?? (options.serviceUrl ? 'service' : 'local') }];
  const ttsList = options.tts ? parse(options.tts, '--tts') : [{ name: 'service' }];
  const where: { stt: string[]; tts: string[] } = { stt: [], tts: [] };
  const checks = new Map<string, KeyCheck>();
  const checked = (check: KeyCheck) => {
    const key = `${check.descriptor.name} ${check.settings.baseUrl ?? ''} ${check.settings.apiKey ?? ''}`;
    const known = checks.get(key);
    if (check.descriptor.checkKey && check.settings.apiKey) checks.set(key, { ...check, hasFallback: check.hasFallback || (known?.hasFallback ?? false) });
  };
  const stt = sttList.map((choice, index): SttChoice => {
    if (choice.name === 'local') return (where.stt.push('local pocketsphinx in this process'), 'engine');
    if (choice.name === 'service') return (where.stt.push('SERVICE (RECOGNITION)'), 'service');
    const { descriptor, settings } = build(choice, 'stt', index === 0 ? options.sttUrl : undefined, firstKeyed(sttList, 'stt') === index ? options.sttKeyFile : undefined);
    where.stt.push(`${descriptor.name}${choice.variant ? `:${choice.variant}` : ''} at ${settings.baseUrl ?? descriptor.defaultBaseUrl ?? '?'}`);
    checked({ descriptor, settings, hasFallback: index < sttList.length - 1 });
    return guarded(() => descriptor.stt!({ ...settings, ...(choice.variant ? { model: choice.variant } : {}) }));
  });
  const tts = ttsList.map((choice, index): TtsChoice => {
    if (choice.name === 'local') return (where.tts.push('local flite in this process'), 'local');
    if (choice.name === 'service') return (where.tts.push('SERVICE (/v1/tts/live)'), 'service');
    const { descriptor, settings } = build(choice, 'tts', index === 0 ? options.ttsUrl : undefined, firstKeyed(ttsList, 'tts') === index ? options.ttsKeyFile : undefined);
    where.tts.push(`${descriptor.name}${choice.variant ? `:${choice.variant}` : ''} at ${settings.baseUrl ?? descriptor.defaultBaseUrl ?? '?'}`);
    checked({ descriptor, settings, hasFallback: index < ttsList.length - 1 });
    return guarded(() => descriptor.tts!({ ...settings, ...(choice.variant ? { voice: choice.variant } : {}) }));
  });
  return {
    stt,
    tts,
    embeddedRecognition: stt[0] === 'engine',
    usesService: stt.includes('service') || tts.includes('service'),
    checkKeys: (warn, timeoutMs = 5000) => checkKeys([...checks.values()], warn, timeoutMs),
    describe: (serviceUrl, serviceRecognition = '/v1/asr') => {
      const service = serviceUrl ? `the speech service at ${serviceUrl}` : 'the self-hosted speech service in this process';
      const recognition = serviceRecognition === '/v1/listen' ? '/v1/listen, one live socket per call' : '/v1/asr';
      const list = (items: string[]) => items.map((item) => item.replace('SERVICE', service).replace('RECOGNITION', recognition)).join(', then ');
      return `Speech: recognition by ${list(where.stt)}; synthesis by ${list(where.tts)}`;
    },
  };
}

/** A start-up warning on stderr: one line, the command goes on. */
export const warnLine = (line: string): void => void process.stderr.write(`shoal: warning: ${line}\n`);

async function checkKeys(checks: readonly KeyCheck[], warn: (line: string) => void, timeoutMs: number): Promise<void> {
  const signal = AbortSignal.timeout(timeoutMs);
  const failures = await Promise.all(
    checks.map(async (check) => {
      try {
        await check.descriptor.checkKey!(check.settings, signal);
        return undefined;
      } catch (error) {
        return { check, error };
      }
    }),
  );
  for (const failure of failures) {
    if (!failure) continue;
    const { check, error } = failure;
    if (!isProviderError(error)) throw error;
    if (error.kind === 'auth' && !check.hasFallback) throw new ProviderSetupError(error.line);
    if (error.kind === 'auth') warn(`${error.line}; the next provider of the list takes over`);
    else warn(`${check.descriptor.name}: the key could not be checked (${error.message.replace(`${check.descriptor.name}: `, '')}); going on`);
  }
}

function parse(value: string, flag: string): ProviderChoice[] {
  try {
    return parseProviderChoices(value);
  } catch (error) {
    throw new ProviderSetupError(`${flag}: ${(error as Error).message}`);
  }
}

function descriptorFor(choice: ProviderChoice, stage: 'stt' | 'tts'): ProviderDescriptor {
  const flag = `--${stage}`;
  const descriptor = speechProvider(choice.name);
  if (descriptor?.[stage]) return descriptor;
  if (descriptor) throw new ProviderSetupError(`${flag} ${choice.name}: ${choice.name} has no ${stage === 'stt' ? 'recognition' : 'synthesis'}; choose from ${names}`);
  throw new ProviderSetupError(`${flag} ${choice.name}: unknown provider; choose from ${names}`);
}

function build(choice: ProviderChoice, stage: 'stt' | 'tts', url: string | undefined, keyFromFile: string | undefined) {
  const descriptor = descriptorFor(choice, stage);
  const baseUrl = url ?? (descriptor.baseUrlVariable ? process.env[descriptor.baseUrlVariable] : undefined);
  if (url) checkUrl(url, `--${stage}-url`);
  const apiKey = keyFromFile ?? (descriptor.keyVariable ? process.env[descriptor.keyVariable] : undefined);
  return { descriptor, settings: { ...(apiKey ? { apiKey } : {}), ...(baseUrl ? { baseUrl } : {}) } };
}

/** The index of the first provider of the list that takes a key (the one a `--…-key-file` is for). */
function firstKeyed(list: readonly ProviderChoice[], stage: 'stt' | 'tts'): number {
  return list.findIndex((choice) => speechProvider(choice.name)?.[stage] !== undefined && speechProvider(choice.name)?.keyVariable !== undefined);
}

function checkUrl(url: string, flag: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ProviderSetupError(`${flag} ${url}: not a URL; give e.g. https://api.deepgram.com or http://127.0.0.1:8080`);
  }
  if (!['http:', 'https:', 'ws:', 'wss:'].includes(parsed.protocol)) throw new ProviderSetupError(`${flag} ${url}: use http(s):// or ws(s)://`);
}

/** A provider's factory; its `ProviderError` (a missing key) becomes one line naming the variable. */
function guarded<T>(make: () => T): T {
  try {
    return make();
  } catch (error) {
    if (isProviderError(error)) throw new ProviderSetupError(error.line);
    throw error;
  }
}
