import { randomBytes } from 'node:crypto';
import { EngineBusyError, EngineUnavailableError, ReferenceTooShortError } from '../../engines/index.js';
import { RequestValidationError } from '../http/errors.js';
import { newId } from '../store/ids.js';
import type { StagedFile, StoredSample, Visibility, VoiceModelRecord, VoiceModelStore } from '../store/types.js';
import type { ModelAudioTools, PreparedSample } from './models-audio.js';
import { listField, type ModelForm, type UploadedFile } from './models-form.js';
import { guessLanguage, qualityProblems } from './models-quality.js';
import {
  booleanField, coverField, descriptionField, IssueList, rejectUnknown, single, tagsField, titleField, visibilityField,
} from './models-validation.js';

const createFields = [
  'type', 'title', 'train_mode', 'voices', 'visibility', 'description', 'cover_image', 'texts', 'tags',
  'enhance_audio_quality', 'generate_sample',
] as const;

/** Text of the generated sample, by language; English for languages without one. */
const sampleTexts: Record<string, string> = {
  en: 'Hello! This is a preview of my voice. I hope you like how it sounds.',
};

export interface CreateModelInput {
  title: string;
  visibility: Visibility;
  description: string;
  tags: string[];
  voices: UploadedFile[];
  texts: string[] | undefined;
  cover: { file: UploadedFile; extension: string } | undefined;
  enhance: boolean;
  generateSample: boolean;
}

/** Validates a POST /model form; throws RequestValidationError (422) listing every problem. */
export function parseCreateForm(form: ModelForm, maxVoices: number): CreateModelInput {
  const issues = new IssueList();
  rejectUnknown(form, createFields, issues);
  const type = single(form, 'type', issues);
  if (type === undefined) issues.add(['type'], 'missing', 'type is required; use "tts"');
  else if (type !== 'tts') issues.add(['type'], 'literal_error', `type must be "tts", got "${type}"`);
  const title = titleField(single(form, 'title', issues), issues, true);
  const trainMode = single(form, 'train_mode', issues);
  if (trainMode === undefined) issues.add(['train_mode'], 'missing', 'train_mode is required; use "fast"');
  else if (trainMode !== 'fast') issues.add(['train_mode'], 'literal_error', `train_mode must be "fast", got "${trainMode}"`);
  const voices = form.files.get('voices') ?? [];
  if (voices.length === 0) issues.add(['voices'], 'missing', 'voices is required: upload at least one audio file');
  if (voices.length > maxVoices) issues.add(['voices'], 'too_long', `at most ${maxVoices} voices per model`);
  voices.forEach((voice, i) => {
    if (voice.size === 0) issues.add(['voices', i], 'value_error', `voice ${voice.filename} is empty`);
  });
  const visibility = visibilityField(single(form, 'visibility', issues), issues) ?? 'public';
  const description = descriptionField(single(form, 'description', issues), issues) ?? '';
  const cover = coverField(form, issues);
  if (visibility === 'public' && !cover && !issues.issues.some((issue) => issue.loc[1] === 'cover_image')) {
    issues.add(['cover_image'], 'missing', 'cover_image is required when visibility is public (or use unlist/private)');
  }
  const texts = listField(form.fields.get('texts'), voices.length);
  if (texts && texts.length !== voices.length) {
    issues.add(['texts'], 'value_error', `texts has ${texts.length} entries for ${voices.length} voices; send one per voice`);
  }
  const tags = tagsField(form, issues) ?? [];
  const enhance = booleanField(form, 'enhance_audio_quality', true, issues);
  const generateSample = booleanField(form, 'generate_sample', false, issues);
  if (issues.issues.length > 0) throw new RequestValidationError(issues.issues);
  return { title: title!, visibility, description, tags, voices, texts, cover, enhance, generateSample };
}

interface PreparedVoice {
  sample: StoredSample;
  pcm16k: Int16Array;
  /** The WAV to store (enhanced when asked). */
  wav: Uint8Array;
}

async function prepareVoice(
  voice: UploadedFile,
  index: number,
  text: string | undefined,
  enhance: boolean,
  tools: ModelAudioTools,
): Promise<PreparedVoice> {
  let prepared: PreparedSample;
  try {
    prepared = await tools.prepareSample(voice.stagedPath, enhance);
  } catch (error) {
    if (error instanceof EngineBusyError) throw error;
    throw new RequestValidationError([
      { loc: ['body', 'voices', String(index)], type: 'value_error', msg: `cannot read ${voice.filename} as audio: ${(error as Error).message}`, in: 'body' },
    ]);
  }
  const { measures, pcm16k, wav } = prepared;
  const reasons = qualityProblems(measures);
  let transcript = text?.trim() ?? '';
  let language = transcript ? guessLanguage(transcript) : 'unknown';
  if (text === undefined || transcript === '') {
    try {
      const heard = await tools.transcribe(pcm16k);
      transcript = heard.text;
      language = heard.language;
      if (!transcript) reasons.push('no transcript: speech recognition heard no words');
    } catch (error) {
      if (!(error instanceof EngineUnavailableError)) throw error;
      reasons.push(`no transcript: speech recognition is unavailable (${error.message})`);
    }
  }
  const file = `voice-${index}.wav`;
  return {
    pcm16k,
    wav,
    sample: {
      file,
      originalName: voice.filename,
      text: transcript,
      quality: {
        filename: voice.filename,
        duration_ms: measures.duration_ms,
        language,
        quality: { ...measures, enhanced: enhance },
        quality_passed: qualityProblems(measures).length === 0,
        quality_reason: reasons.join('; '),
      },
    },
  };
}

async function voiceOf(pcm16k: Int16Array[], tools: ModelAudioTools) {
  try {
    return await tools.voiceSettings(pcm16k);
  } catch (error) {
    if (!(error instanceof ReferenceTooShortError)) throw error;
    throw new RequestValidationError([
      { loc: ['body', 'voices'], type: 'value_error', msg: `the voices hold too little speech: ${error.message}`, in: 'body' },
    ]);
  }
}

/** Creates a fast-mode model: stores processed samples, derives the engine voice, optionally renders a sample. */
export async function createModel(
  input: CreateModelInput,
  ownerId: string,
  store: VoiceModelStore,
  tools: ModelAudioTools,
): Promise<VoiceModelRecord> {
  const staged: StagedFile[] = [];
  try {
    const prepared: PreparedVoice[] = [];
    for (const [i, voice] of input.voices.entries()) {
      prepared.push(await prepareVoice(voice, i, input.texts?.[i], input.enhance, tools));
    }
    const passing = prepared.filter((p) => p.sample.quality.quality_passed);
    const voice = await voiceOf((passing.length > 0 ? passing : prepared).map((p) => p.pcm16k), tools);
    for (const p of prepared) staged.push({ stagedPath: await store.stage(p.wav), file: p.sample.file });
    const languages = [...new Set(prepared.map((p) => p.sample.quality.language).filter((l) => l !== 'unknown'))];
    let coverFile = '';
    if (input.cover) {
      coverFile = `cover-${randomBytes(4).toString('hex')}.${input.cover.extension}`;
      staged.push({ stagedPath: input.cover.file.stagedPath, file: coverFile });
    }
    const generated: VoiceModelRecord['generated'] = [];
    let defaultText = '';
    if (input.generateSample) {
      defaultText = sampleTexts[languages[0] ?? 'en'] ?? sampleTexts.en!;
      const rendered = await tools.synthesize(defaultText, voice);
      const taskId = newId();
      const file = `sample-${taskId}.wav`;
      staged.push({ stagedPath: await store.stage(tools.encodeWav(rendered)), file });
      generated.push({ title: input.title, text: defaultText, task_id: taskId, file });
    }
    const now = new Date().toISOString();
    return await store.create(
      {
        id: newId(),
        ownerId,
        type: 'tts',
        title: input.title,
        titleLanguage: guessLanguage(input.title),
        description: input.description,
        coverFile,
        trainMode: 'fast',
        state: 'trained',
        visibility: input.visibility,
        tags: input.tags,
        languages,
        likeCount: 0,
        markCount: 0,
        sharedCount: 0,
        taskCount: 0,
        lockVisibility: false,
        dmcaTakenDown: false,
        defaultText,
        source: null,
        samples: prepared.map((p) => p.sample),
        generated,
        voice,
        qualityCreatedAt: now,
        createdAt: now,
        updatedAt: now,
      },
      staged,
    );
  } catch (error) {
    await store.discard(staged.map((s) => s.stagedPath));
    throw error;
  }
}
