import type { RecordsCommandOptions } from './call-records.js';
import type { LogLevel } from '../logging/index.js';
import type { LlmCommandOptions } from './llm-options.js';
import type { AsrChoice } from './speech-engines.js';
import type { ProviderCommandOptions } from './provider-options.js';

/**
 * The options of each command as commander parses them (src/cli/commands/*.ts) and its runner
 * (src/cli/run-*.ts) reads them. They live here so that commands and runners need not import each other.
 */

export interface AgentCommandOptions extends LlmCommandOptions, ProviderCommandOptions, RecordsCommandOptions {
  agent: string;
  host: string;
  port: number;
  mode: 'low-latency' | 'balanced';
  script?: string;
  serviceUrl?: string;
  apiKey?: string;
  /** Where speech is recognised; default: the service with `serviceUrl`, else local (`asrChoice`). */
  asr?: AsrChoice;
  logLevel?: LogLevel;
  /** Other web origins whose pages may open calls; the page's own always may. */
  allowOrigin?: string[];
  /** Browser calls must carry this token (`--access-token-file`, $SHOAL_AGENT_TOKEN). */
  accessToken?: string;
  /** Carriers' media streams must carry this `?key=` (`--stream-key-file`, $SHOAL_STREAM_KEY). */
  streamKey?: string;
  /** Signs Twilio stream tokens; the same on every instance behind a load balancer ($SHOAL_STREAM_SECRET). */
  streamSecret?: string;
  /** Twilio's auth token: webhook signatures and call control ($TWILIO_AUTH_TOKEN). */
  twilioAuthToken?: string;
  /** On a non-loopback address, take calls without an access token or stream key, on purpose. */
  publicCalls?: boolean;
  /** Calls taken at once; default: from the cores and what a call on these engines costs (`defaultMaxCalls`). */
  maxCalls?: number;
  /** On SIGTERM, the longest wait for calls in progress to end before they are cut. */
  drainTimeoutMs?: number;
  /** Public https URL carriers reach this server at (env SHOAL_PUBLIC_URL): turns on Twilio's answer webhook and stream tokens. */
  publicUrl?: string;
  /** NAME=NUMBER pairs a dialogue's `transfer_call {to: NAME}` goes to. */
  transfer?: string[];
  /** Where `transfer_call` goes without a known name. */
  transferTo?: string;
  /** Let `transfer_call` dial any number or SIP URI the dialogue gives, not only the configured ones. */
  allowAnyTransferTarget?: boolean;
  /** Send `transfer_call` to a name that is not configured to `--transfer-to` instead of telling the dialogue. */
  transferUnknownToDefault?: boolean;
}

export interface CallCommandOptions extends AgentCommandOptions {
  from?: string;
  machineDetection: boolean;
}

export interface LiveKitCommandOptions extends LlmCommandOptions, ProviderCommandOptions, RecordsCommandOptions {
  url?: string;
  apiKey?: string;
  apiSecret?: string;
  agentName: string;
  jobType: 'room' | 'publisher' | 'participant';
  agent: string;
  script?: string;
  mode: 'low-latency' | 'balanced';
  serviceUrl?: string;
  serviceKey?: string;
  /** Where speech is recognised; default: the service with `serviceUrl`, else local (`asrChoice`). */
  asr?: AsrChoice;
  maxCalls?: number;
  loadThreshold: number;
  callerIdentity?: string;
  callerKind?: string;
  endCall: 'delete-room' | 'remove-caller' | 'leave';
  transfer?: Record<string, string>;
  transferTo?: string;
  /** Let transfer_call dial any sip:/tel: URI the dialogue gives, not only --transfer targets. */
  allowAnyTransferTarget?: boolean;
  transferUnknownToDefault?: boolean;
  drainTimeout: number;
}

export interface ServeCommandOptions {
  host: string;
  port: number;
  data: string;
  /** PostgreSQL URL shared by several instances; default: SQLite in `data`. */
  database?: string;
  /** With `database`: Redis for the request-rate counters. */
  redis?: string;
  devKey?: string;
  logLevel: LogLevel;
  /** On SIGTERM/SIGINT, the longest wait for requests in progress before closing. */
  drainTimeoutMs: number;
  /** HTTP TTS responses synthesised at once; one more gets 503 + Retry-After (default: one per core). */
  ttsStreams?: number;
  /** Requests per second per API key (burst twice that); across the fleet with --database. */
  keyRate?: number;
  /** Live sessions per API key at once; across the fleet with --database. */
  keyLiveSessions?: number;
  /** A /v1/listen socket with no audio and no message for this long is closed (Deepgram's 10 s), in ms. */
  listenIdleTimeout?: number;
}

export interface ServiceConnectionOptions {
  serviceUrl?: string;
  apiKey?: string;
}

export interface TtsCommandOptions extends ServiceConnectionOptions {
  out: string;
  voice?: string;
  speed?: number;
  sampleRate?: number;
  model?: string;
}

export interface AsrCommandOptions extends ServiceConnectionOptions {
  language?: string;
  json?: boolean;
}

export interface TalkCommandOptions extends LlmCommandOptions, ProviderCommandOptions, Pick<RecordsCommandOptions, 'dataDir' | 'callRecords'> {
  in: string;
  out?: string;
  agent: string;
  script?: string;
  mode: 'low-latency' | 'balanced';
  /** A speech service to use instead of the one started in-process, and its key. */
  serviceUrl?: string;
  apiKey?: string;
  json?: boolean;
  fast?: boolean;
  /** Default warn: the turns are the command's output; info adds the per-call log lines on stderr. */
  logLevel?: LogLevel;
}

/** `shoal test`; the `--llm-*` options are the agent of files that name none. */
export interface TestCommandOptions extends LlmCommandOptions, ProviderCommandOptions {
  json?: boolean;
  junit?: string;
  report?: string;
  runs: number;
  seed?: number;
  grep?: string;
  record?: string;
  /** `--no-call-records`: with `record`, write no call records into it. */
  callRecords?: boolean;
  concurrency: number;
  agent?: string;
  script?: string;
  serviceUrl?: string;
  apiKey?: string;
  judgeUrl?: string;
  judgeModel?: string;
  judgeKey?: string;
}
