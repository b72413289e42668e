import type { FastifyInstance } from 'fastify';
import { BehaviorSubject, filter, firstValueFrom, race, timer } from 'rxjs';
import { probe, probePaths, startProcessMetrics } from '../../metrics/index.js';
import { ServiceError } from '../accounts.js';

/** The service's side of draining: requests in progress, and whether new ones are still taken. */
export interface ServiceDrain {
  readonly draining: boolean;
  /** Stops taking requests (503 with Retry-After) and resolves when those in progress are answered, or after `timeoutMs`. */
  drain(timeoutMs: number): Promise<void>;
}

/**
 * `GET /healthz`, `/readyz` and `/metrics` without an API key, ahead of the gate; counts requests in progress
 * and refuses new ones while draining. Must be installed before the gate so refusals cost nothing.
 */
export function installProbes(app: FastifyInstance): ServiceDrain {
  startProcessMetrics();
  const inFlight$ = new BehaviorSubject(0);
  let draining = false;
  const readiness = { ready: () => !draining, describe: () => ({ draining, requests: inFlight$.value }) };
  const paths = new Set<string>(probePaths);
  app.addHook('onRequest', async (request, reply) => {
    if (paths.has(request.url.split('?')[0]!)) return;
    if (draining) throw new ServiceError(503, 'the service is shutting down; retry on another instance', 5);
    inFlight$.next(inFlight$.value + 1);
    reply.raw.once('close', () => inFlight$.next(inFlight$.value - 1));
  });
  for (const path of probePaths) {
    app.get(path, { config: { probe: true } }, async (_request, reply) => {
      const answer = (await probe(path, readiness))!;
      return reply.code(answer.status).header('content-type', answer.contentType).header('cache-control', 'no-store').send(answer.body);
    });
  }
  return {
    get draining() {
      return draining;
    },
    async drain(timeoutMs) {
      draining = true;
      await firstValueFrom(race(inFlight$.pipe(filter((count) => count === 0)), timer(timeoutMs)));
    },
  };
}
