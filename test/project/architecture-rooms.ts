/**
 * The rooms (folders) of Shoal and which rooms each may import: the one table that
 * test/project/architecture-imports.test.ts checks every import of src/, plugins/ and agents/ against, and that
 * docs/architecture.md draws. A room is a folder under src/ (or plugins/, agents/); imports within a
 * room are free. Read a row as "ROOM may import ...". The table has no cycles.
 */
export const rooms = {
  // Foundations: import no other room.
  speech: [], // what a caller is expected to say (Expectation, its schema) and word timings
  audio: [], // PCM, codecs, containers, resampling
  tracing: [], // W3C traceparent and span attributes
  logging: [], // pino loggers
  optional: [], // loading optional packages with a clear error
  // The speech stack.
  engines: ['speech', 'audio', 'optional'], // local engines (flite, pocketsphinx, Silero VAD, media) and their pools
  client: ['speech', 'audio', 'tracing'], // the speech service's client (hosted or self-hosted)
  metrics: ['engines'], // the process's Prometheus registry and probes
  pipeline: ['audio', 'engines'], // frame operators: reframing, VAD, utterances, playout
  service: ['speech', 'audio', 'tracing', 'logging', 'optional', 'engines', 'metrics'], // the self-hosted speech service
  // The agent framework.
  agent: ['speech', 'audio', 'tracing', 'logging', 'optional', 'engines', 'client', 'metrics', 'pipeline', 'service'], // the agent runtime (VoiceAgent, CallSession, stacks)
  plugins: ['speech', 'audio', 'optional', 'agent'], // dialogues (OpenAI-compatible LLMs, scripted, echo) and speech providers (Deepgram, …)
  transports: ['audio', 'tracing', 'optional', 'metrics', 'pipeline', 'service', 'agent'], // browser, telephony, LiveKit, file
  agents: ['agent', 'plugins'], // the ready-made agents (`--agent NAME`)
  testing: ['audio', 'tracing', 'optional', 'client', 'pipeline', 'agent', 'plugins', 'transports', 'agents'], // scenario tests (`shoal test`, shoal/testing)
  cli: ['speech', 'audio', 'tracing', 'logging', 'optional', 'engines', 'client', 'metrics', 'pipeline', 'service', 'agent', 'plugins', 'transports', 'agents', 'testing'], // `shoal …`
  entry: ['speech', 'audio', 'tracing', 'engines', 'client', 'pipeline', 'service', 'agent', 'transports'], // src/index.ts, the package's root
} as const satisfies Record<string, readonly string[]>;

export type Room = keyof typeof rooms;

/**
 * Imports allowed against the table, each until a stated removal: deprecated re-exports kept so that
 * users' imports of an entry point keep working.
 */
export const exceptions: ReadonlyArray<{ from: string; to: string; why: string }> = [
  { from: 'src/transports/file/index.ts', to: 'src/cli/run-talk.ts', why: 'deprecated runTalk/TalkInputError of shoal/transports; remove in 0.2' },
  { from: 'src/transports/file/index.ts', to: 'src/cli/options.ts', why: 'deprecated TalkOptions of shoal/transports; remove in 0.2' },
];

/** The room of a repository path such as `src/agent/voice-agent.ts` (undefined outside the rooms). */
export function roomOf(path: string): Room | undefined {
  const parts = path.split('/');
  if (parts[0] === 'plugins' || parts[0] === 'agents') return parts[0];
  if (parts[0] !== 'src') return undefined;
  if (parts.length === 2) return parts[1] === 'index.ts' ? 'entry' : undefined;
  return parts[1] in rooms ? (parts[1] as Room) : undefined;
}
