import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { join } from 'node:path';
import type { SqliteDatabase } from './database.js';
import { FileArea, safeName } from './file-area.js';
import { modelListSql } from './model-list-sql.js';
import type { ModelPage, ModelPatch, ModelQuery, StagedFile, VoiceModelRecord, VoiceModelStore } from './types.js';

export interface ModelRow {
  id: string;
  owner_id: string;
  type: string;
  title: string;
  title_language: string;
  description: string;
  cover_file: string;
  train_mode: string;
  state: string;
  visibility: string;
  tags: string;
  languages: string;
  like_count: number;
  mark_count: number;
  shared_count: number;
  task_count: number;
  lock_visibility: number;
  dmca_taken_down: number;
  default_text: string;
  source: string | null;
  samples: string;
  generated: string;
  voice: string;
  quality_created_at: string | null;
  created_at: string;
  updated_at: string;
}

export const columns = [
  'id', 'owner_id', 'type', 'title', 'title_language', 'description', 'cover_file', 'train_mode', 'state',
  'visibility', 'tags', 'languages', 'like_count', 'mark_count', 'shared_count', 'task_count', 'score',
  'lock_visibility', 'dmca_taken_down', 'default_text', 'source', 'samples', 'generated', 'voice',
  'quality_created_at', 'created_at', 'updated_at',
] as const;


export function toRecord(row: ModelRow): VoiceModelRecord {
  return {
    id: row.id,
    ownerId: row.owner_id,
    type: row.type as VoiceModelRecord['type'],
    title: row.title,
    titleLanguage: row.title_language,
    description: row.description,
    coverFile: row.cover_file,
    trainMode: row.train_mode as VoiceModelRecord['trainMode'],
    state: row.state as VoiceModelRecord['state'],
    visibility: row.visibility as VoiceModelRecord['visibility'],
    tags: JSON.parse(row.tags) as string[],
    languages: JSON.parse(row.languages) as string[],
    likeCount: row.like_count,
    markCount: row.mark_count,
    sharedCount: row.shared_count,
    taskCount: row.task_count,
    lockVisibility: row.lock_visibility === 1,
    dmcaTakenDown: row.dmca_taken_down === 1,
    defaultText: row.default_text,
    source: row.source,
    samples: JSON.parse(row.samples) as VoiceModelRecord['samples'],
    generated: JSON.parse(row.generated) as VoiceModelRecord['generated'],
    voice: JSON.parse(row.voice) as VoiceModelRecord['voice'],
    qualityCreatedAt: row.quality_created_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function toRow(model: VoiceModelRecord): ModelRow & { score: number } {
  return {
    id: model.id,
    owner_id: model.ownerId,
    type: model.type,
    title: model.title,
    title_language: model.titleLanguage,
    description: model.description,
    cover_file: model.coverFile,
    train_mode: model.trainMode,
    state: model.state,
    visibility: model.visibility,
    tags: JSON.stringify(model.tags),
    languages: JSON.stringify(model.languages),
    like_count: model.likeCount,
    mark_count: model.markCount,
    shared_count: model.sharedCount,
    task_count: model.taskCount,
    score: scoreOf(model),
    lock_visibility: model.lockVisibility ? 1 : 0,
    dmca_taken_down: model.dmcaTakenDown ? 1 : 0,
    default_text: model.defaultText,
    source: model.source,
    samples: JSON.stringify(model.samples),
    generated: JSON.stringify(model.generated),
    voice: JSON.stringify(model.voice),
    quality_created_at: model.qualityCreatedAt,
    created_at: model.createdAt,
    updated_at: model.updatedAt,
  };
}

/** The `score` sort: uses weigh most, then likes, marks and shares. */
function scoreOf(model: Pick<VoiceModelRecord, 'taskCount' | 'likeCount' | 'markCount' | 'sharedCount'>): number {
  return model.taskCount + 10 * model.likeCount + 5 * model.markCount + 5 * model.sharedCount;
}

/** Files a model references; everything else in its folder is debris of an interrupted change. */
export function referencedFiles(model: VoiceModelRecord): Set<string> {
  const files = new Set<string>([...model.samples.map((s) => s.file), ...model.generated.map((g) => g.file)]);
  if (model.coverFile) files.add(model.coverFile);
  return files;
}

/** Voice models in SQLite, their audio and cover files in a FileArea. */
export class SqliteVoiceModelStore implements VoiceModelStore {
  private readonly statements;
  private readonly listStatements = new Map<string, ReturnType<SqliteDatabase['prepare']>>();

  constructor(
    private readonly db: SqliteDatabase,
    private readonly files: FileArea,
  ) {
    this.statements = {
      insert: db.prepare(`INSERT INTO models (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`),
      insertTag: db.prepare('INSERT OR IGNORE INTO model_tags (model_id, tag) VALUES (?, ?)'),
      insertLanguage: db.prepare('INSERT OR IGNORE INTO model_languages (model_id, language) VALUES (?, ?)'),
      deleteTags: db.prepare('DELETE FROM model_tags WHERE model_id = ?'),
      get: db.prepare('SELECT * FROM models WHERE id = ?'),
      delete: db.prepare('DELETE FROM models WHERE id = ?'),
      taskCount: db.prepare('UPDATE models SET task_count = task_count + 1, score = score + 1 WHERE id = ?'),
      update: db.prepare(
        `UPDATE models SET title = @title, title_language = @title_language, description = @description,
         tags = @tags, visibility = @visibility, cover_file = @cover_file, updated_at = @updated_at WHERE id = @id`,
      ),
    };
  }

  async create(model: VoiceModelRecord, staged: StagedFile[]): Promise<VoiceModelRecord> {
    await this.files.adopt(model.id, staged);
    try {
      this.db.transaction(() => {
        this.statements.insert.run(toRow(model));
        for (const tag of model.tags) this.statements.insertTag.run(model.id, tag);
        for (const language of model.languages) this.statements.insertLanguage.run(model.id, language);
      }).immediate();
    } catch (error) {
      await this.files.removeModel(model.id);
      throw error;
    }
    return this.byId(model.id)!;
  }

  async get(id: string): Promise<VoiceModelRecord | null> {
    return this.byId(id);
  }

  /** The record of a model, read synchronously (the startup sweep needs it before anything is served). */
  byId(id: string): VoiceModelRecord | null {
    const row = this.statements.get.get(id) as ModelRow | undefined;
    return row ? toRecord(row) : null;
  }

  async list(query: ModelQuery): Promise<ModelPage> {
    const sql = modelListSql(query);
    const total = (this.statement(sql.count).get(sql.params) as { n: number }).n;
    if (total <= (query.pageNumber - 1) * query.pageSize) return { total, items: [] };
    const rows = this.statement(sql.page(total)).all(sql.params) as ModelRow[];
    return { total, items: rows.map(toRecord) };
  }

  /** Prepared statements of list queries, by their text (queries differ only in which filters are present). */
  private statement(sql: string) {
    let prepared = this.listStatements.get(sql);
    if (!prepared) {
      if (this.listStatements.size >= 256) this.listStatements.clear();
      prepared = this.db.prepare(sql);
      this.listStatements.set(sql, prepared);
    }
    return prepared;
  }

  async update(id: string, patch: ModelPatch, staged: StagedFile[]): Promise<VoiceModelRecord | null> {
    if (!this.byId(id)) {
      await this.discard(staged.map((s) => s.stagedPath));
      return null;
    }
    if (staged.length) await this.files.adopt(id, staged);
    // Read and write in one transaction, so a concurrent update of other fields is not lost.
    const before = this.db.transaction(() => {
      const current = this.byId(id);
      if (!current) return null;
      const changes = Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined));
      this.statements.update.run(toRow({ ...current, ...changes, updatedAt: new Date().toISOString() }));
      if (patch.tags) {
        this.statements.deleteTags.run(id);
        for (const tag of new Set(patch.tags)) this.statements.insertTag.run(id, tag);
      }
      return current;
    }).immediate();
    if (!before) {
      // Deleted meanwhile: the files just moved in belong to no row.
      await this.files.removeModel(id);
      return null;
    }
    if (patch.coverFile !== undefined && before.coverFile && before.coverFile !== patch.coverFile) {
      await this.files.removeFiles([this.filePath(id, before.coverFile)]);
    }
    return this.byId(id);
  }

  async delete(id: string): Promise<boolean> {
    const deleted = this.db.transaction(() => this.statements.delete.run(id).changes === 1).immediate();
    if (deleted) await this.files.removeModel(id);
    return deleted;
  }

  async incrementTaskCount(id: string): Promise<void> {
    this.statements.taskCount.run(id);
  }

  filePath(id: string, file: string): string {
    return join(this.files.modelDir(id), safeName(file));
  }

  async openFile(id: string, file: string): Promise<Readable> {
    return createReadStream(this.filePath(id, file));
  }

  stage(content: Uint8Array | Readable): Promise<string> {
    return this.files.stage(content);
  }

  discard(stagedPaths: string[]): Promise<void> {
    return this.files.removeFiles(stagedPaths);
  }
}
