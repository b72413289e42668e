import { MissingPackageError, importOptional } from '../optional/index.js';

/** The OpenTelemetry SDK the command started; `shutdown()` flushes the spans still buffered. */
export interface Telemetry {
  shutdown(): Promise<void>;
}

export const defaults = {
  /** `service.name` when OTEL_SERVICE_NAME (or OTEL_RESOURCE_ATTRIBUTES) does not set one. */
  serviceName: 'shoal',
  /**
   * Shoal records no OpenTelemetry metrics or logs: metrics are the Prometheus endpoint's, logs are pino's
   * lines. So these exporters stay off unless the environment asks for them.
   */
  offUnlessSet: ['OTEL_METRICS_EXPORTER', 'OTEL_LOGS_EXPORTER'],
};

/** Whether the environment asks for traces: an OTLP endpoint, or a traces exporter other than `none`. */
export function tracesRequested(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env['OTEL_SDK_DISABLED']?.toLowerCase() === 'true') return false;
  const exporter = env['OTEL_TRACES_EXPORTER']?.trim();
  if (exporter) return exporter !== 'none';
  return Boolean(env['OTEL_EXPORTER_OTLP_ENDPOINT'] || env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']);
}

/**
 * Starts the OpenTelemetry Node SDK when the environment asks for traces, configured by the OpenTelemetry
 * environment variables (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL, OTEL_SERVICE_NAME,
 * OTEL_RESOURCE_ATTRIBUTES, OTEL_TRACES_SAMPLER, ...). Without @opentelemetry/sdk-node installed it warns,
 * naming the package, and the command runs untraced.
 */
export async function startTelemetry(warn: (message: string) => void, env: NodeJS.ProcessEnv = process.env): Promise<Telemetry | undefined> {
  if (!tracesRequested(env)) return undefined;
  let sdkNode: typeof import('@opentelemetry/sdk-node');
  try {
    sdkNode = await importOptional<typeof import('@opentelemetry/sdk-node')>('@opentelemetry/sdk-node');
  } catch (error) {
    if (!(error instanceof MissingPackageError)) throw error;
    warn(`traces are not exported: ${error.message}`);
    return undefined;
  }
  for (const name of defaults.offUnlessSet) env[name] ??= 'none';
  const named = Boolean(env['OTEL_SERVICE_NAME']) || /(^|,)\s*service\.name=/.test(env['OTEL_RESOURCE_ATTRIBUTES'] ?? '');
  const sdk = new sdkNode.NodeSDK({ instrumentations: [], ...(named ? {} : { serviceName: defaults.serviceName }) });
  sdk.start();
  return { shutdown: () => sdk.shutdown() };
}
