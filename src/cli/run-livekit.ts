import { readFileSync } from 'node:fs';
import { CallAdmission } from '../agent/admission.js';
import { createEmbeddedAgentStack } from '../agent/index.js';
import {
  CallControl,
  callJobRunner,
  LiveKitWorker,
  parseParticipantKinds,
  type DispatchCredentials,
  type WorkerEvent,
} from '../transports/livekit/index.js';
import type { LiveKitCommandOptions } from './options.js';
import { dialogueSource, speechService } from './run-agent.js';
import { callEngines } from './speech-engines.js';
import { speechChoice, warnLine } from './speech-providers.js';
import { openCallRecords } from './call-records.js';
import { serviceRecognition } from './service-recognition.js';

/** LiveKit URL, key or secret is missing from both the flags and the environment. */
export class MissingLiveKitCredentialsError extends Error {
  override readonly name = 'MissingLiveKitCredentialsError';
  constructor(readonly missing: string[]) {
    super(`LiveKit ${missing.join(', ')} missing: set ${missing.map((m) => `$LIVEKIT_${m.toUpperCase().replace(' ', '_')}`).join(', ')} or pass ${missing.map((m) => `--${m.replace(' ', '-')}`).join(', ')}`);
  }
}

/** Flags first, then the environment variables LiveKit's tools use. */
export function liveKitCredentials(options: Pick<LiveKitCommandOptions, 'url' | 'apiKey' | 'apiSecret'>, env = process.env): DispatchCredentials {
  const url = options.url ?? env['LIVEKIT_URL'];
  const apiKey = options.apiKey ?? env['LIVEKIT_API_KEY'];
  const apiSecret = options.apiSecret ?? env['LIVEKIT_API_SECRET'];
  const missing = [!url && 'url', !apiKey && 'api key', !apiSecret && 'api secret'].filter((m): m is string => Boolean(m));
  if (missing.length > 0) throw new MissingLiveKitCredentialsError(missing);
  return { url: url!, apiKey: apiKey!, apiSecret: apiSecret! };
}

export function describeWorkerEvent(event: WorkerEvent): string | undefined {
  switch (event.type) {
    case 'registered':
      return `${event.reconnect ? 're-registered' : 'registered'} with LiveKit as worker ${event.workerId}${event.serverVersion ? ` (server ${event.serverVersion})` : ''}`;
    case 'disconnected':
      return `lost LiveKit (${event.reason}); reconnecting in ${event.retryInMs} ms, calls in progress go on`;
    case 'job-offered':
      return event.accepted ? undefined : `declined job ${event.jobId} for room ${event.room}: ${event.reason}`;
    case 'job-started':
      return `job ${event.jobId}: joined room ${event.room}`;
    case 'job-ended':
      return `job ${event.jobId}: room ${event.room} done${event.error ? ` (failed: ${event.error})` : ''}`;
    case 'status':
      return `${event.full ? 'full' : 'available'}: load ${event.load.toFixed(2)}, ${event.jobs} calls`;
    case 'draining':
      return `draining: taking no more jobs, ${event.jobs} calls in progress`;
    case 'closed':
      return undefined;
  }
}

const version = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url.replace('/dist/src/', '/src/')), 'utf8')) as { version: string }).version;

/** `shoal livekit`: registers with LiveKit's agent dispatch and takes calls until SIGTERM/SIGINT, then drains. */
export async function runLiveKitCommand(options: LiveKitCommandOptions): Promise<void> {
  const credentials = liveKitCredentials(options);
  const kinds = parseParticipantKinds(options.callerKind ?? 'standard,sip,connector');
  const transfers = {
    targets: options.transfer ?? {},
    allowAnyTarget: options.allowAnyTransferTarget ?? false,
    unknownToDefault: options.transferUnknownToDefault ?? false,
    ...(options.transferTo ? { defaultTarget: options.transferTo } : {}),
  };
  const source = await dialogueSource(options, transfers);
  const serviceKey = options.serviceKey ?? process.env['FISH_API_KEY'] ?? process.env['SHOAL_API_KEY'];
  if (options.serviceUrl && !serviceKey) throw new Error('--service-url needs an API key: pass --service-key KEY or set FISH_API_KEY (or SHOAL_API_KEY)');
  const print = (line: string | undefined) => line && process.stdout.write(`${line}\n`);

  print('starting the agent…');
  const speech = speechChoice(options);
  await speech.checkKeys(warnLine);
  const service = speech.usesService ? await speechService({ serviceUrl: options.serviceUrl, apiKey: serviceKey }) : undefined;
  const records = await openCallRecords(options, (error) => print(`call record not written: ${error instanceof Error ? error.message : String(error)}`), {
    log: { warn: (details, message) => print(`${message} ${JSON.stringify(details)}`) },
  });
  const recognition = await serviceRecognition(speech.stt, service);
  const stack = await createEmbeddedAgentStack({ mode: options.mode, ...(service ? { service: { url: service.url, apiKey: service.apiKey } } : {}), stt: recognition.sttFor(options.mode), tts: speech.tts });
  print(speech.describe(options.serviceUrl, recognition.path));
  print(recognition.fallback);
  const admission = new CallAdmission({ maxCalls: options.maxCalls, engines: callEngines(options, speech) });
  const control = CallControl.forServer(credentials, { endCall: options.endCall, transferTargets: options.transfer, defaultTransferTo: options.transferTo, allowAnyTransferTarget: options.allowAnyTransferTarget, transferUnknownToDefault: options.transferUnknownToDefault });
  const worker = new LiveKitWorker({
    ...credentials,
    agentName: options.agentName,
    jobType: options.jobType,
    version,
    admission,
    loadThreshold: options.loadThreshold,
    runJob: callJobRunner({
      agent: () => stack.agentFor(source.create(undefined).dialogue, records ? { records: records.records } : {}),
      caller: options.callerIdentity ? { identity: options.callerIdentity } : { kinds },
      control,
      log: print,
      onCall: ({ job, session, caller }) => {
        print(`job ${job.id}: call with ${caller.identity} (${caller.kind}), trace ${session.traceId}`);
        session.events$.subscribe((event) => {
          if (event.type === 'error') print(`job ${job.id}: ${event.stage} error: ${event.message}`);
          if (event.type === 'hangup') print(`job ${job.id}: call ended: ${event.reason}`);
        });
      },
    }),
  });
  worker.events$.subscribe((event) => print(describeWorkerEvent(event)));
  const closeStack = async () => {
    await stack.close();
    await source.close();
    await service?.embedded?.close();
    await records?.close();
  };
  try {
    await worker.start();
  } catch (error) {
    await closeStack();
    throw error;
  }
  print(`taking calls from ${credentials.url} (${options.agentName ? `explicit dispatch as "${options.agentName}"` : 'automatic dispatch'}, up to ${admission.capacity} at once)`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  print(`draining (up to ${options.drainTimeout} ms)…`);
  const { finished, terminated } = await worker.drain(options.drainTimeout);
  print(`drained: ${finished} calls finished, ${terminated} ended at the deadline`);
  await closeStack();
  // Room connections still being set up live in the SDK's native side; release it so the process can exit.
  const { dispose } = await import('@livekit/rtc-node');
  await dispose();
  // Anything else still holding the event loop gets a moment, then the worker exits as promised.
  setTimeout(() => process.exit(process.exitCode ?? 0), 2000).unref();
}
