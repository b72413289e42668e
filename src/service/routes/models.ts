import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify';
import { randomBytes } from 'node:crypto';
import { ServiceError } from '../accounts.js';
import { RequestValidationError } from '../http/errors.js';
import { principalOf } from '../http/gate.js';
import type { ModelPatch, StagedFile, UserRecord, VoiceModelRecord, VoiceModelStore } from '../store/types.js';
import { canSee } from '../store/voice-resolver.js';
import type { ModelAudioTools } from './models-audio.js';
import { createModel, parseCreateForm } from './models-create.js';
import { authorLookup, toModelEntity } from './models-entity.js';
import { defaults as uploadDefaults, readModelForm, type ModelForm, type ModelUploadLimits, type Stage } from './models-form.js';
import { parseModelQuery } from './models-query.js';
import { guessLanguage } from './models-quality.js';
import {
  coverField, coverTypes, descriptionField, IssueList, rejectUnknown, single, tagsField, titleField, visibilityField,
} from './models-validation.js';

export interface ModelRoutesOptions {
  store: VoiceModelStore;
  /** Author names for ModelEntity.author. */
  getUser: (id: string) => Promise<UserRecord | null>;
  tools: ModelAudioTools;
  limits?: Partial<ModelUploadLimits>;
}

const patchFields = ['title', 'description', 'tags', 'visibility', 'cover_image'] as const;

function notFound(id: string): ServiceError {
  return new ServiceError(404, `no voice model with id ${id} that you can see`);
}

function baseUrl(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}

/** `POST /model`, `GET /model`, `GET|PATCH|DELETE /model/{id}` and the model's cover and sample files. */
export const modelRoutes: FastifyPluginAsync<ModelRoutesOptions> = async (app: FastifyInstance, options) => {
  const { store, tools } = options;
  const limits = { ...uploadDefaults, ...options.limits };
  if (!app.hasContentTypeParser('multipart/form-data')) await app.register(multipart);

  const visibleModel = async (request: FastifyRequest<{ Params: { id: string } }>): Promise<VoiceModelRecord> => {
    const model = await store.get(request.params.id);
    if (!model || !canSee(model, principalOf(request).userId)) throw notFound(request.params.id);
    return model;
  };
  const ownModel = async (request: FastifyRequest<{ Params: { id: string } }>): Promise<VoiceModelRecord> => {
    const model = await visibleModel(request);
    if (model.ownerId !== principalOf(request).userId) {
      throw new ServiceError(403, `voice model ${model.id} belongs to another user; only its owner can change or delete it`);
    }
    return model;
  };
  const stage: Stage = (content) => store.stage(content);
  /** Staged uploads that were attached have moved into the model's folder; removing the rest is what is left. */
  const discard = (paths: string[]) => store.discard(paths);
  const entity = async (request: FastifyRequest, model: VoiceModelRecord) =>
    toModelEntity(model, await authorLookup(options.getUser)(model.ownerId), baseUrl(request));

  app.post('/model', { bodyLimit: limits.totalBytes }, async (request, reply) => {
    const principal = principalOf(request);
    const form = await readModelForm(request, limits, stage, discard);
    try {
      const model = await createModel(parseCreateForm(form, limits.voices), principal.userId, store, tools);
      return reply.code(201).send(await entity(request, model));
    } finally {
      await discard(form.staged);
    }
  });

  app.get('/model', async (request) => {
    const query = parseModelQuery(request.query as Record<string, unknown>, principalOf(request).userId);
    const page = await store.list(query);
    const author = authorLookup(options.getUser);
    return {
      total: page.total,
      items: await Promise.all(page.items.map(async (model) => toModelEntity(model, await author(model.ownerId), baseUrl(request)))),
      has_more: query.pageNumber * query.pageSize < page.total,
    };
  });

  app.get<{ Params: { id: string } }>('/model/:id', async (request) => entity(request, await visibleModel(request)));

  app.patch<{ Params: { id: string } }>('/model/:id', { bodyLimit: limits.coverBytes + limits.fieldBytes * 8 }, async (request) => {
    const model = await ownModel(request);
    const form = await readModelForm(request, { ...limits, voices: 0, voiceBytes: 0 }, stage, discard);
    try {
      return await patchModel(model, form);
    } finally {
      await discard(form.staged);
    }
  });

  const patchModel = async (model: VoiceModelRecord, form: ModelForm) => {
    const issues = new IssueList();
    rejectUnknown(form, patchFields, issues);
    const patch: ModelPatch = {};
    const title = titleField(single(form, 'title', issues), issues, false);
    if (title !== undefined) Object.assign(patch, { title, titleLanguage: guessLanguage(title) });
    patch.description = descriptionField(single(form, 'description', issues), issues);
    patch.tags = tagsField(form, issues);
    patch.visibility = visibilityField(single(form, 'visibility', issues), issues);
    if (patch.visibility && patch.visibility !== model.visibility && model.lockVisibility) {
      issues.add(['visibility'], 'value_error', 'the visibility of this model is locked');
    }
    const cover = coverField(form, issues);
    if ((patch.visibility ?? model.visibility) === 'public' && !cover && !model.coverFile) {
      issues.add(['cover_image'], 'missing', 'a public model needs a cover_image; upload one or keep it unlist/private');
    }
    if (issues.issues.length) throw new RequestValidationError(issues.issues);
    const staged: StagedFile[] = [];
    if (cover) {
      patch.coverFile = `cover-${randomBytes(4).toString('hex')}.${cover.extension}`;
      staged.push({ stagedPath: cover.file.stagedPath, file: patch.coverFile });
    }
    if (!(await store.update(model.id, patch, staged))) throw notFound(model.id);
    return { status: 'ok' };
  };

  app.delete<{ Params: { id: string } }>('/model/:id', async (request) => {
    const model = await ownModel(request);
    if (!(await store.delete(model.id))) throw notFound(model.id);
    return { status: 'ok' };
  });

  app.get<{ Params: { id: string } }>('/model/:id/cover', async (request, reply) => {
    const model = await visibleModel(request);
    if (!model.coverFile) throw new ServiceError(404, `voice model ${model.id} has no cover image`);
    const extension = model.coverFile.split('.').pop() ?? '';
    return reply.type(coverTypes[extension] ?? 'application/octet-stream').send(await store.openFile(model.id, model.coverFile));
  });

  app.get<{ Params: { id: string; taskId: string } }>('/model/:id/samples/:taskId', async (request, reply) => {
    const model = await visibleModel(request);
    const sample = model.generated.find((entry) => entry.task_id === request.params.taskId);
    if (!sample) throw new ServiceError(404, `voice model ${model.id} has no sample ${request.params.taskId}`);
    return reply.type('audio/wav').send(await store.openFile(model.id, sample.file));
  });
};
