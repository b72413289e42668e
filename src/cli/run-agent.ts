import { callRecordsApi, openCallRecords } from './call-records.js';
import { basename } from 'node:path';
import {
  createEmbeddedAgentStack,
  type AgentMode,
  type EmbeddedAgentStack,
  type CallSession,
  type Dialogue,
  type Transport,
} from '../agent/index.js';
import { startEmbeddedService, type EmbeddedService } from '../service/index.js';
import { SpokenCaptions, startDemoServer, toBrowserMessages, type DemoServer, type AgentListing } from '../transports/browser/index.js';
import { AgentBusyError, CallRejectedError, type CallRequest, type RunningCall } from '../transports/call-request.js';
import { CallAdmission } from '../agent/admission.js';
import { recordTurn, watchAdmission } from '../agent/call-metrics.js';
import { agents, createDialogue, UnknownAgentError } from '../../agents/index.js';
import { loadFlow, openDialogueFile, type McpServer } from '../../plugins/index.js';
import { createLogger, type Logger } from '../logging/index.js';
import type { Clock } from '../pipeline/index.js';
import type { AgentCommandOptions } from './options.js';
import { defaults as llmDefaults, llmDialogue, type LlmCommandOptions } from './llm-options.js';
import { PhoneLines, transferPolicy } from './phone-lines.js';
import { ExposureError, exposureProblems } from './exposure.js';
import { listenError } from './listen-error.js';
import type { TransferPolicy } from '../agent/transfer-target.js';
import { callEngines } from './speech-engines.js';
import { speechChoice, warnLine } from './speech-providers.js';
import { serviceRecognition } from './service-recognition.js';

/** A started `shoal agent`: the speech stack, the demo page and the transports. */
export interface AgentApp {
  /** The demo page, e.g. http://127.0.0.1:3000/ */
  readonly url: string;
  readonly server: DemoServer;
  /** Who gets in: capacity, active calls, load. */
  readonly admission: CallAdmission;
  /** Stops taking calls and waits up to `timeoutMs` for the calls in progress to end (then `close()` cuts the rest). */
  drain(timeoutMs: number): Promise<void>;
  /** Phone webhooks, call control and outbound calls. */
  readonly phone: PhoneLines;
  /** The start-up lines that say which engines run where (and why recognition is not streamed, when it is not). */
  readonly speechLines: readonly string[];
  close(): Promise<void>;
}

export interface AgentAppHooks {
  /** Each call as it starts: its transport, the agent's session and what the caller asked for. */
  onCall?(call: { transport: Transport; session: CallSession; request: CallRequest; agent: string }): void;
  /** Where the app and each call log (a child per call); default: silent. */
  logger?: Logger;
  /**
   * The calls' clock (frames, pacing, endpointing, timers); default: the wall clock. With a `VirtualClock`, a
   * caller that moves it as it sends frames and waits for each call to settle runs whole calls as fast as the CPU
   * allows; each call's VAD then scores in this thread, as in the scenario runner.
   */
  clock?: Clock;
}

/** Where each call's dialogue comes from: an LLM, a `--script` file, or the ready-made agents by name. */
export interface DialogueSource {
  listing: AgentListing;
  create(name: string | undefined): { name: string; dialogue: Dialogue };
  /** Stops what the dialogues use: the MCP servers of `--mcp` and of a flow's `mcp:`. */
  close(): Promise<void>;
}

export async function dialogueSource(options: Pick<AgentCommandOptions, 'agent' | 'script'> & LlmCommandOptions, transfers?: TransferPolicy): Promise<DialogueSource> {
  const servers: McpServer[] = [];
  const llm = await llmDialogue(options, transfers, servers);
  if (llm) {
    const description = `LLM ${options.llmModel ?? llmDefaults.model} at ${options.llmUrl}`;
    return {
      listing: { default: llm.name, agents: [{ name: llm.name, description }] },
      create: () => ({ name: llm.name, dialogue: llm }),
      close: async () => void (await Promise.all(servers.map((server) => server.close()))),
    };
  }
  if (options.script) {
    const script = loadFlow(options.script);
    const name = script.name || basename(options.script);
    const opened = await openDialogueFile(options.script);
    return {
      listing: { default: name, agents: [{ name, description: script.description ?? `scripted dialogue from ${basename(options.script)}` }] },
      create: () => ({ name, dialogue: opened.create() }),
      close: () => opened.close(),
    };
  }
  createDialogue(options.agent); // fails at start-up, naming the agents that exist, rather than on the first call
  const names = [options.agent, ...Object.keys(agents).filter((name) => name !== options.agent)];
  return {
    close: async () => undefined,
    listing: { default: options.agent, agents: names.map((name) => ({ name, description: agents[name]!.description })) },
    create: (requested) => {
      const name = requested ?? options.agent;
      try {
        return { name, dialogue: createDialogue(name) };
      } catch (error) {
        if (error instanceof UnknownAgentError) throw new CallRejectedError('unknown_agent', error.message);
        throw error;
      }
    },
  };
}

/** The speech service the agents use: `--service-url` with its key, else the self-hosted one started here. */
export async function speechService(options: Pick<AgentCommandOptions, 'serviceUrl' | 'apiKey'>): Promise<{ url: string; apiKey: string; embedded?: EmbeddedService }> {
  if (options.serviceUrl) {
    const apiKey = options.apiKey ?? process.env['FISH_API_KEY'] ?? process.env['SHOAL_API_KEY'];
    if (!apiKey) throw new MissingApiKeyError();
    return { url: options.serviceUrl, apiKey };
  }
  // Synthesis starts with the first call's greeting (see EmbeddedStackOptions.warmTts).
  const embedded = await startEmbeddedService({ logLevel: 'warn', warmUp: false });
  return { url: embedded.url, apiKey: embedded.apiKey, embedded };
}

/** `--service-url` was given without a key. */
export class MissingApiKeyError extends Error {
  override readonly name = 'MissingApiKeyError';
  constructor() {
    super('--service-url needs an API key: pass --api-key KEY or set FISH_API_KEY (or SHOAL_API_KEY)');
  }
}

/** Starts the speech service, the agent stack, the demo page and the browser and telephony transports, in this process. */
export async function startAgentApp(options: AgentCommandOptions, hooks: AgentAppHooks = {}): Promise<AgentApp> {
  const accessToken = options.accessToken ?? (process.env['SHOAL_AGENT_TOKEN'] || undefined);
  const streamKey = options.streamKey ?? (process.env['SHOAL_STREAM_KEY'] || undefined);
  const twilioAuthToken = options.twilioAuthToken ?? (process.env['TWILIO_AUTH_TOKEN'] || undefined);
  const publicUrl = options.publicUrl ?? (process.env['SHOAL_PUBLIC_URL'] || undefined);
  const problems = exposureProblems({ host: options.host, accessToken, streamKey, publicUrl, twilioAuthToken, publicCalls: options.publicCalls });
  if (problems.length > 0) throw new ExposureError(problems);
  const transfers = transferPolicy(options);
  const source = await dialogueSource(options, transfers);
  try {
    const app = await serveCalls(options, hooks, source, { accessToken, streamKey, twilioAuthToken, publicUrl, transfers });
    return { ...app, close: () => app.close().finally(() => source.close()) };
  } catch (error) {
    await source.close();
    throw error;
  }
}

interface Doors {
  accessToken: string | undefined;
  streamKey: string | undefined;
  twilioAuthToken: string | undefined;
  publicUrl: string | undefined;
  transfers: TransferPolicy;
}

async function serveCalls(options: AgentCommandOptions, hooks: AgentAppHooks, source: DialogueSource, { accessToken, streamKey, twilioAuthToken, publicUrl, transfers }: Doors): Promise<AgentApp> {
  const logger = hooks.logger ?? createLogger({ level: 'silent' });
  const records = await openCallRecords(options, (error) => logger.warn({ err: error }, 'call record not written'), { log: logger });
  const speech = speechChoice(options);
  await speech.checkKeys(warnLine);
  const admission = new CallAdmission({ maxCalls: options.maxCalls, engines: callEngines(options, speech) });
  const phone = new PhoneLines(
    {
      publicUrl,
      transfers,
      agent: source.listing.default,
      mode: options.mode,
      busy: () => !admission.ready,
      ...(streamKey ? { streamKey } : {}),
      ...(twilioAuthToken ? { twilioAuthToken } : {}),
      ...(options.streamSecret ? { streamSecret: options.streamSecret } : {}),
    },
    (line) => logger.info(line),
  );
  // Nothing of the speech service runs when no `service` provider is chosen (`--stt deepgram --tts cartesia`).
  const service = speech.usesService ? await speechService(options) : undefined;
  const recognition = await serviceRecognition(speech.stt, service);
  // One stack per turn-taking mode (the mode decides the recognizer's interim cadence), sharing the one service.
  const stacks = new Map<AgentMode, Promise<EmbeddedAgentStack>>();
  const stackFor = (mode: AgentMode): Promise<EmbeddedAgentStack> => {
    let stack = stacks.get(mode);
    if (!stack) {
      stack = createEmbeddedAgentStack({ mode, ...(service ? { service: { url: service.url, apiKey: service.apiKey } } : {}), stt: recognition.sttFor(mode), tts: speech.tts });
      stacks.set(mode, stack);
    }
    return stack;
  };
  const closeStacks = async () => {
    const settled = await Promise.allSettled(stacks.values());
    await Promise.all(settled.map((result) => (result.status === 'fulfilled' ? result.value.close() : undefined)));
    await service?.embedded?.close();
  };
  try {
    await stackFor(options.mode);
  } catch (error) {
    await closeStacks();
    await records?.close();
    throw error;
  }
  const unwatch = watchAdmission(admission);

  let server: DemoServer;
  try {
    server = await startDemoServer({
      host: options.host,
      port: options.port,
      agents: source.listing,
      routes: [...phone.routes, ...(records ? [callRecordsApi(records.store, accessToken, records.recordings)] : [])],
      guard: { allowedOrigins: options.allowOrigin ?? [], accessToken },
      streamTokens: phone.tokens,
      streamAccessKey: phone.accessKey,
      onError: (error, where) => logger.error({ err: error, where }, 'transport error'),
      ...(hooks.clock ? { clock: hooks.clock } : {}),
      readiness: {
        ready: () => admission.ready,
        describe: () => ({ draining: admission.draining, active: admission.active, capacity: admission.capacity, load: admission.load() }),
      },
      startCall: async (transport: Transport, request): Promise<RunningCall> => {
        const slot = admission.admit();
        if (!slot) {
          logger.warn({ draining: admission.draining, capacity: admission.capacity }, 'call refused');
          throw new AgentBusyError(admission.draining ? 'draining' : 'full', busyRetryAfterMs);
        }
        try {
          return await startSession(transport, request, slot.release);
        } catch (error) {
          slot.release();
          throw error;
        }
      },
    });
  } catch (error) {
    unwatch();
    await closeStacks();
    await records?.close();
    throw listenError(error, options.host, options.port);
  }

  async function startSession(transport: Transport, request: CallRequest, release: () => void): Promise<RunningCall> {
    const { name, dialogue } = source.create(request.agent);
    const mode = request.mode ?? options.mode;
    const stack = await stackFor(mode);
    const send = transport.send?.bind(transport);
    const recording = records ? { records: records.records } : {};
    const clock = hooks.clock;
    const onClock = clock ? { vad: () => stack.vadInThread() } : {};
    const handleOn = clock ? { clock } : {};
    let session: CallSession;
    if (send) {
      // Pages get the agent's words as they are played, so the call's speech and playout are watched.
      const captions = new SpokenCaptions();
      const speech = captions.speech(stack.agentFor(dialogue).options.tts);
      session = stack.agentFor(dialogue, { tts: speech, logger, ...recording, ...onClock }).handle(captions.transport(transport), handleOn);
      captions.follow(session.events$);
      session.events$.pipe(toBrowserMessages(captions.captions$)).subscribe((message) => send(message));
    } else {
      session = stack.agentFor(dialogue, { logger, ...recording, ...onClock }).handle(transport, handleOn);
    }
    session.events$.subscribe((event) => {
      if (event.type === 'turn-metrics') recordTurn(event.report.metrics);
      if (event.type === 'hangup') release();
    });
    phone.attach(transport, session);
    hooks.onCall?.({ transport, session, request, agent: name });
    return {
      agent: name,
      mode,
      stop: () => {
        session.hangup('caller left');
        release();
      },
    };
  }
  // The other mode's stack warms up in the background, so switching modes on the page does not wait for it.
  const otherMode: AgentMode = options.mode === 'balanced' ? 'low-latency' : 'balanced';
  stackFor(otherMode).catch((error: unknown) => logger.warn({ err: error }, `${otherMode} mode unavailable`));
  return {
    url: server.url,
    server,
    admission,
    phone,
    speechLines: [speech.describe(options.serviceUrl, recognition.path), ...(recognition.fallback ? [recognition.fallback] : [])],
    drain: (timeoutMs) => admission.drain(timeoutMs),
    close: async () => {
      unwatch();
      await server.close();
      await closeStacks();
      await records?.close();
    },
  };
}

/** A refused caller is told to try again after this long. */
const busyRetryAfterMs = 30_000;

/**
 * `shoal agent`: runs until SIGINT/SIGTERM, printing the page's URL and one line per turn. The signal drains:
 * no new calls, calls in progress get up to `drainTimeoutMs` to end, then everything closes and the process
 * exits 0. A second signal stops at once.
 */
export async function runAgentCommand(options: AgentCommandOptions): Promise<void> {
  const logger = createLogger({ level: options.logLevel ?? 'info' });
  // Listening from the start, and never dropping the listener: a signal during start-up stops the agent once it
  // has started, and no moment is left in which a signal would kill the process without its drain.
  let stop: (signal: NodeJS.Signals) => void = () => {};
  const stopping = new Promise<NodeJS.Signals>((resolve) => (stop = resolve));
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    if (++signals === 1) return stop(signal);
    logger.warn(`${signal} again: exiting without waiting`);
    process.exit(130);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  logger.info('starting the agent');
  const app = await startAgentApp(options, { logger });
  process.stdout.write(`Shoal demo agent: open ${app.url} and press Start call (up to ${app.admission.capacity} calls at once)\n`);
  for (const line of app.speechLines) process.stdout.write(`${line}\n`);
  for (const line of app.phone.describe(app.url)) process.stdout.write(`${line}\n`);
  const signal = await stopping;
  const drainTimeoutMs = options.drainTimeoutMs ?? 30_000;
  logger.info({ signal, active: app.admission.active, drainTimeoutMs }, 'draining');
  await app.drain(drainTimeoutMs);
  logger.info({ cut: app.admission.active }, 'stopping');
  await app.close();
}
