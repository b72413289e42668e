import { fileName, toBlob, type FileInput } from './audio-input.js';
import type { CallOptions } from './defaults.js';
import { defaults } from './defaults.js';
import { InvalidRequestError } from './errors.js';
import type { HttpTransport, QueryValue, RequestBody } from './http.js';
import { jsonBody } from './request-body.js';
import type { ModelList, VoiceModel } from './types.js';

export interface CreateVoiceModelRequest {
  title: string;
  /** Audio to tune the model on: paths, bytes, Blobs or streams (streams are buffered, so the upload can be retried). */
  voices: FileInput[];
  /** Transcripts matching `voices`; the service runs ASR when omitted. */
  texts?: string[];
  visibility?: 'public' | 'unlist' | 'private';
  description?: string;
  /** Required by the hosted service when visibility is `public`. */
  coverImage?: FileInput;
  tags?: string[];
  /** Default `tts`. */
  type?: 'tts';
  /** Default `fast`. */
  trainMode?: 'fast';
  enhanceAudioQuality?: boolean;
  generateSample?: boolean;
}

export interface ListVoiceModelsQuery {
  page_size?: number;
  page_number?: number;
  title?: string;
  tag?: string | string[];
  self?: boolean;
  author_id?: string;
  language?: string | string[];
  title_language?: string | string[];
  sort_by?: 'score' | 'task_count' | 'created_at';
}

export interface UpdateVoiceModelRequest {
  title?: string;
  description?: string;
  visibility?: 'public' | 'unlist' | 'private';
  tags?: string[];
  /** Sent as multipart when given (JSON otherwise). */
  coverImage?: FileInput;
}

function idPath(id: string): string {
  if (!id) throw new InvalidRequestError('a voice model id is required');
  return `/model/${encodeURIComponent(id)}`;
}

/** `/model` endpoints: create (multipart), get, update, delete, list and iterate over every page. */
export class VoiceModels {
  constructor(private readonly http: HttpTransport) {}

  async create(request: CreateVoiceModelRequest, options: CallOptions = {}): Promise<VoiceModel> {
    if (!request.title) throw new InvalidRequestError('a voice model needs a title');
    if (!request.voices?.length) throw new InvalidRequestError('a voice model needs at least one voice sample in `voices`');
    if (request.texts && request.texts.length !== request.voices.length) {
      throw new InvalidRequestError(`texts has ${request.texts.length} entries but voices has ${request.voices.length}; give one transcript per sample`);
    }
    const voices = await Promise.all(request.voices.map(async (voice, index) => ({ blob: await toBlob(voice), name: fileName(voice, `voice-${index}.wav`) })));
    const cover = request.coverImage ? { blob: await toBlob(request.coverImage), name: fileName(request.coverImage, 'cover.png') } : undefined;
    const make = () => {
      const form = new FormData();
      form.append('type', request.type ?? 'tts');
      form.append('title', request.title);
      form.append('train_mode', request.trainMode ?? 'fast');
      for (const voice of voices) form.append('voices', voice.blob, voice.name);
      for (const text of request.texts ?? []) form.append('texts', text);
      for (const tag of request.tags ?? []) form.append('tags', tag);
      if (request.visibility) form.append('visibility', request.visibility);
      if (request.description !== undefined) form.append('description', request.description);
      if (cover) form.append('cover_image', cover.blob, cover.name);
      if (request.enhanceAudioQuality !== undefined) form.append('enhance_audio_quality', String(request.enhanceAudioQuality));
      if (request.generateSample !== undefined) form.append('generate_sample', String(request.generateSample));
      return form;
    };
    return this.http.json<VoiceModel>({ method: 'POST', path: '/model', body: { make, replayable: true }, what: 'POST /model', call: options });
  }

  get(id: string, options: CallOptions = {}): Promise<VoiceModel> {
    return this.http.json<VoiceModel>({ method: 'GET', path: idPath(id), what: `GET /model/${id}`, call: options });
  }

  /** Changes a model's fields; the answer's shape is not specified by the interface, so it is returned as sent. */
  async update(id: string, changes: UpdateVoiceModelRequest, options: CallOptions = {}): Promise<unknown> {
    const { coverImage, ...fields } = changes;
    let body: RequestBody = jsonBody(fields);
    if (coverImage) {
      const cover = { blob: await toBlob(coverImage), name: fileName(coverImage, 'cover.png') };
      const make = () => {
        const form = new FormData();
        for (const [key, value] of Object.entries(fields)) {
          if (Array.isArray(value)) for (const item of value) form.append(key, item);
          else if (value !== undefined) form.append(key, String(value));
        }
        form.append('cover_image', cover.blob, cover.name);
        return form;
      };
      body = { make, replayable: true };
    }
    return this.http.json<unknown>({ method: 'PATCH', path: idPath(id), body, what: `PATCH /model/${id}`, call: options });
  }

  async delete(id: string, options: CallOptions = {}): Promise<void> {
    (await this.http.send({ method: 'DELETE', path: idPath(id), what: `DELETE /model/${id}`, call: options })).discard();
  }

  list(query: ListVoiceModelsQuery = {}, options: CallOptions = {}): Promise<ModelList> {
    return this.http.json<ModelList>({ method: 'GET', path: '/model', query: query as Record<string, QueryValue>, what: 'GET /model', call: options });
  }

  /** Every model matching the query, page after page, until a page is short, `has_more` is false or `total` is reached. */
  async *iterate(query: Omit<ListVoiceModelsQuery, 'page_number'> = {}, options: CallOptions = {}): AsyncGenerator<VoiceModel> {
    const pageSize = query.page_size ?? defaults.listPageSize;
    let seen = 0;
    for (let page = 1; ; page++) {
      const list = await this.list({ ...query, page_size: pageSize, page_number: page }, options);
      for (const item of list.items) yield item;
      seen += list.items.length;
      if (list.items.length === 0 || list.has_more === false || seen >= list.total) return;
      if (list.has_more !== true && list.items.length < pageSize) return;
    }
  }
}
