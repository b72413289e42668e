import type { FastifyInstance } from 'fastify';
import { ServiceError } from '../accounts.js';
import type { ServiceContext } from '../context.js';
import type { StreamAdmission } from '../tts/stream-admission.js';
import { sendOpenAiError } from './errors.js';
import { listedModels } from './models.js';
import { registerSpeechRoute } from './speech.js';
import { registerTranscriptionRoute } from './transcriptions.js';

/**
 * The OpenAI-compatible routes (docs/compatible-apis.md): transcription, speech and the model list, behind the
 * service's keys, wallet and limits, answering errors in OpenAI's shape. Registered as a plugin so that shape
 * stays on these routes.
 */
export async function registerOpenAiRoutes(app: FastifyInstance, service: ServiceContext, admission: StreamAdmission): Promise<void> {
  await app.register(async (routes) => {
    routes.setErrorHandler(sendOpenAiError);
    registerTranscriptionRoute(routes, service);
    registerSpeechRoute(routes, service, admission);
    routes.get('/v1/models', async () => ({ object: 'list', data: listedModels() }));
    routes.get<{ Params: { id: string } }>('/v1/models/:id', async (request) => {
      const model = listedModels().find((entry) => entry.id === request.params.id);
      if (!model) throw new ServiceError(404, `model '${request.params.id}' does not exist on this server; GET /v1/models lists them`);
      return model;
    });
  });
}
