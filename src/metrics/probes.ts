import type { IncomingMessage, ServerResponse } from 'node:http';
import { metricsRegistry } from './registry.js';

/** What `/readyz` asks: may this process take more work now? */
export interface Readiness {
  ready(): boolean;
  /** Figures shown with the answer, e.g. active calls and capacity. */
  describe?(): Record<string, unknown>;
}

export interface ProbeResponse {
  status: number;
  contentType: string;
  body: string;
}

export const probePaths = ['/healthz', '/readyz', '/metrics'] as const;

/**
 * The answer to `GET /healthz` (the process is alive: always 200), `GET /readyz` (200 while it takes new
 * work, 503 when full or draining) and `GET /metrics` (Prometheus text); `undefined` for any other path.
 */
export async function probe(path: string, readiness: Readiness): Promise<ProbeResponse | undefined> {
  switch (path) {
    case '/healthz':
      return json(200, { status: 'ok' });
    case '/readyz': {
      const ready = readiness.ready();
      return json(ready ? 200 : 503, { ready, ...readiness.describe?.() });
    }
    case '/metrics':
      return { status: 200, contentType: metricsRegistry.contentType, body: await metricsRegistry.metrics() };
    default:
      return undefined;
  }
}

/** Answers the probe paths on a plain node HTTP server; returns false for other requests. */
export function handleProbe(request: IncomingMessage, response: ServerResponse, readiness: Readiness): boolean {
  const path = (request.url ?? '/').split('?')[0]!;
  if (request.method !== 'GET' || !(probePaths as readonly string[]).includes(path)) return false;
  probe(path, readiness).then(
    (answer) => {
      response.writeHead(answer!.status, { 'content-type': answer!.contentType, 'cache-control': 'no-store' });
      response.end(answer!.body);
    },
    (error: unknown) => {
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ status: 500, message: `metrics failed: ${(error as Error).message}` }));
    },
  );
  return true;
}

function json(status: number, body: Record<string, unknown>): ProbeResponse {
  return { status, contentType: 'application/json; charset=utf-8', body: JSON.stringify(body) };
}
