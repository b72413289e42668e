import { readFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import type { FileArea } from './file-area.js';
import { safeName } from './file-area.js';
import { modelListSql } from './model-list-sql.js';
import { changesChannel, positional, type PgDatabase, type Queryable } from './pg-database.js';
import { columns, toRecord, toRow, type ModelRow } from './sqlite-voice-model-store.js';
import type { ModelPage, ModelPatch, ModelQuery, StagedFile, VoiceModelRecord, VoiceModelStore } from './types.js';

const insertSql = `INSERT INTO models (${columns.join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`;

/**
 * Voice models in PostgreSQL, their audio and cover files in the same database (`model_files`, bytea):
 * every instance serves every model, a model and its files commit together, and a backup of the database
 * is a backup of everything. Uploads are staged on this instance's disk only while their request runs.
 */
export class PgVoiceModelStore implements VoiceModelStore {
  constructor(
    private readonly db: PgDatabase,
    /** This instance's staging area (a private temp folder). */
    private readonly staging: FileArea,
  ) {}

  async create(model: VoiceModelRecord, staged: StagedFile[]): Promise<VoiceModelRecord> {
    const files = await readStaged(staged);
    const row = toRow(model);
    await this.db.transaction(async (client) => {
      await client.query(insertSql, columns.map((column) => row[column]));
      for (const tag of new Set(model.tags)) await client.query('INSERT INTO model_tags (model_id, tag) VALUES ($1, $2) ON CONFLICT DO NOTHING', [model.id, tag]);
      for (const language of new Set(model.languages)) {
        await client.query('INSERT INTO model_languages (model_id, language) VALUES ($1, $2) ON CONFLICT DO NOTHING', [model.id, language]);
      }
      await insertFiles(client, model.id, files);
    });
    await this.discard(staged.map((s) => s.stagedPath));
    return (await this.get(model.id))!;
  }

  async get(id: string): Promise<VoiceModelRecord | null> {
    const { rows } = await this.db.query<ModelRow>('SELECT * FROM models WHERE id = $1', [id], 'model-by-id');
    return rows[0] ? toRecord(rows[0]) : null;
  }

  async list(query: ModelQuery): Promise<ModelPage> {
    const sql = modelListSql(query);
    const count = positional(sql.count, sql.params);
    const total = Number((await this.db.query<{ n: number }>(count.text, count.values)).rows[0]!.n);
    if (total <= (query.pageNumber - 1) * query.pageSize) return { total, items: [] };
    const page = positional(sql.page(total), sql.params);
    const { rows } = await this.db.query<ModelRow>(page.text, page.values);
    return { total, items: rows.map(toRecord) };
  }

  async update(id: string, patch: ModelPatch, staged: StagedFile[]): Promise<VoiceModelRecord | null> {
    const files = await readStaged(staged);
    const updated = await this.db.transaction(async (client) => {
      // Locks the row: a concurrent update of other fields is not lost.
      const { rows } = await client.query<ModelRow>('SELECT * FROM models WHERE id = $1 FOR UPDATE', [id]);
      if (!rows[0]) return false;
      const current = toRecord(rows[0]);
      const changes = Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined));
      const next = toRow({ ...current, ...changes, updatedAt: new Date().toISOString() });
      await client.query(
        `UPDATE models SET title = $2, title_language = $3, description = $4, tags = $5, visibility = $6, cover_file = $7, updated_at = $8 WHERE id = $1`,
        [id, next.title, next.title_language, next.description, next.tags, next.visibility, next.cover_file, next.updated_at],
      );
      if (patch.tags) {
        await client.query('DELETE FROM model_tags WHERE model_id = $1', [id]);
        for (const tag of new Set(patch.tags)) await client.query('INSERT INTO model_tags (model_id, tag) VALUES ($1, $2)', [id, tag]);
      }
      await insertFiles(client, id, files);
      if (patch.coverFile !== undefined && current.coverFile && current.coverFile !== patch.coverFile) {
        await client.query('DELETE FROM model_files WHERE model_id = $1 AND file = $2', [id, current.coverFile]);
      }
      return true;
    });
    await this.discard(staged.map((s) => s.stagedPath));
    return updated ? this.get(id) : null;
  }

  /** Deletes the model with its files and tells every instance (NOTIFY at commit). */
  async delete(id: string): Promise<boolean> {
    return this.db.transaction(async (client) => {
      const { rowCount } = await client.query('DELETE FROM models WHERE id = $1', [id]);
      if (rowCount === 1) await client.query('SELECT pg_notify($1, $2)', [changesChannel, `model:${id}`]);
      return rowCount === 1;
    });
  }

  async incrementTaskCount(id: string): Promise<void> {
    await this.db.query('UPDATE models SET task_count = task_count + 1, score = score + 1 WHERE id = $1', [id]);
  }

  async openFile(id: string, file: string): Promise<Readable> {
    const { rows } = await this.db.query<{ bytes: Buffer }>('SELECT bytes FROM model_files WHERE model_id = $1 AND file = $2', [id, safeName(file)]);
    if (!rows[0]) throw Object.assign(new Error(`voice model ${id} has no file ${file}`), { statusCode: 404 });
    return Readable.from([rows[0].bytes]);
  }

  stage(content: Uint8Array | Readable): Promise<string> {
    return this.staging.stage(content);
  }

  discard(stagedPaths: string[]): Promise<void> {
    return this.staging.removeFiles(stagedPaths);
  }
}

async function readStaged(staged: StagedFile[]): Promise<{ file: string; bytes: Buffer }[]> {
  return Promise.all(staged.map(async (entry) => ({ file: safeName(entry.file), bytes: await readFile(entry.stagedPath) })));
}

async function insertFiles(client: Queryable, modelId: string, files: { file: string; bytes: Buffer }[]): Promise<void> {
  for (const { file, bytes } of files) {
    await client.query(
      'INSERT INTO model_files (model_id, file, bytes) VALUES ($1, $2, $3) ON CONFLICT (model_id, file) DO UPDATE SET bytes = excluded.bytes',
      [modelId, file, bytes],
    );
  }
}
