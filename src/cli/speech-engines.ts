import { Option } from 'commander';
import { defaultMaxCalls, type CallEngines } from '../agent/admission.js';

/** Where a call's speech is recognised: `local` pocketsphinx in this process, or the speech service's `/v1/asr`. */
export type AsrChoice = 'local' | 'service';

/** `--asr local|service`; without it, a `--service-url` means recognition there too, else local. */
export function asrOption(): Option {
  return new Option('--asr <where>', 'where speech is recognised: local (pocketsphinx in this process) or service (the speech service: /v1/asr per utterance with the call\'s expectations as hints; shoal agent and shoal livekit stream over its live /v1/listen socket where it has one); default: service with --service-url, else local').choices(['local', 'service']);
}

export function asrChoice(options: { asr?: AsrChoice; serviceUrl?: string }): AsrChoice {
  return options.asr ?? (options.serviceUrl ? 'service' : 'local');
}

/** The stack's `stt` for an `--asr` choice. */
export function sttFor(choice: AsrChoice): 'engine' | 'service' {
  return choice === 'local' ? 'engine' : 'service';
}

/** The start-up line that says which engines run where. */
export function describeSpeech(choice: AsrChoice, serviceUrl: string | undefined): string {
  const service = serviceUrl ? `the speech service at ${serviceUrl}` : 'the self-hosted speech service in this process';
  const recognition = choice === 'local' ? 'local pocketsphinx in this process' : `${service} (/v1/asr)`;
  return `Speech: recognition by ${recognition}; synthesis by ${service} (/v1/tts/live)`;
}

/**
 * What the calls cost is decided by where recognition runs: a service's `/v1/asr` elsewhere, or a provider's
 * (`--stt deepgram`), is `hosted`.
 */
export function callEngines(options: { asr?: AsrChoice; serviceUrl?: string }, speech?: { stt: readonly unknown[] }): CallEngines {
  const first = speech?.stt[0];
  if (first !== undefined && typeof first === 'object') return 'hosted';
  if (first !== undefined) return options.serviceUrl && first === 'service' ? 'hosted' : 'embedded';
  return options.serviceUrl && asrChoice(options) === 'service' ? 'hosted' : 'embedded';
}

/** The `--max-calls` help's default, for both kinds of engines. */
export function maxCallsDefaultHelp(): string {
  return `default: ${defaultMaxCalls('embedded')} with the embedded engines, ${defaultMaxCalls('hosted')} with --service-url, from each one's measured CPU per call and the cores`;
}
