import { randomUUID } from 'node:crypto';
import { logCall } from './call-log.js';
import { recordCall } from './records/recorder.js';
import { CallRecording, recordedTransport } from './records/call-audio.js';
import { recordingPath } from './records/recording-store.js';
import type { Transport } from './contracts.js';
import type { VoiceAgentOptions } from './options.js';
import { resolveAgentOptions, type ResolvedAgentOptions } from './resolve-options.js';
import { CallSession } from './call-session.js';
import { ensureContextManager } from './tracing.js';

/**
 * The public entry point: a dialogue plus speech engines and a turn-taking mode. `handle(transport)` runs one
 * call and returns its session (events, history, the summary promised at hangup). One agent serves many calls.
 */
export class VoiceAgent {
  readonly options: ResolvedAgentOptions;

  constructor(options: VoiceAgentOptions) {
    ensureContextManager();
    this.options = resolveAgentOptions(options);
  }

  /** Starts a call on `transport`. The session begins on the next microtask, so subscribe to `events$` first. */
  handle(transport: Transport, overrides: Partial<Pick<VoiceAgentOptions, 'clock'>> = {}): CallSession {
    const { records } = this.options;
    const id = randomUUID();
    const clock = overrides.clock ?? this.options.clock;
    const onError = records?.onError ?? (() => undefined);
    const recordTo = records?.recordings?.open(id, onError) ?? (records?.recordingsDir ? recordingPath(records.recordingsDir, id) : undefined);
    const audio = recordTo ? new CallRecording(recordTo, clock, onError) : undefined;
    const session = new CallSession({ ...this.options, ...overrides } as ResolvedAgentOptions, audio ? recordedTransport(transport, audio) : transport);
    if (this.options.logger) logCall(this.options.logger, session, { dialogue: this.options.dialogue.name, mode: this.options.mode });
    if (records) {
      const facts = { id, agent: this.options.dialogue.name, mode: this.options.mode, transport: transport.describe?.() ?? { kind: 'unnamed' }, clock, ...(audio ? { audio } : {}) };
      recordCall(records, session, facts);
    }
    queueMicrotask(() => session.start());
    return session;
  }
}
