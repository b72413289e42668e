import type { ModelQuery } from './types.js';

const sortOrders = {
  score: 'm.score DESC, m.created_at DESC, m.id DESC',
  task_count: 'm.task_count DESC, m.created_at DESC, m.id DESC',
  created_at: 'm.created_at DESC, m.id DESC',
} as const;

export const defaults = {
  /**
   * Above this many matches a page is read by walking the sort index and probing the filters (it stops after
   * the page); at or below it, from the filter tables and sorted (a few rows). The count decides which.
   */
  walkSortIndexAbove: 500,
};

export interface ModelListSql {
  params: Record<string, unknown>;
  count: string;
  page(total: number): string;
}

/**
 * SQL for one model list query. Tags must all be present; any listed language or title language matches.
 * Private and unlisted models appear only in their author's own lists.
 */
export function modelListSql(query: ModelQuery): ModelListSql {
  const where: string[] = [];
  const joins: string[] = [];
  const probes: string[] = [];
  const params: Record<string, unknown> = { viewer: query.viewerId };
  if (query.authorId !== undefined) {
    params.author = query.authorId;
    where.push(`m.owner_id = @author AND (m.visibility = 'public' OR m.owner_id = @viewer)`);
  } else {
    where.push(`m.visibility = 'public'`);
  }
  if (query.title) {
    params.title = `%${query.title.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    where.push(`m.title LIKE @title ESCAPE '\\'`);
  }
  [...new Set(query.tags ?? [])].forEach((tag, i) => {
    params[`tag${i}`] = tag;
    // The (tag, model_id) key keeps joined rows unique.
    joins.push(`JOIN model_tags t${i} ON t${i}.tag = @tag${i} AND t${i}.model_id = m.id`);
    probes.push(`EXISTS (SELECT 1 FROM model_tags t${i} WHERE t${i}.tag = @tag${i} AND t${i}.model_id = m.id)`);
  });
  const languages = [...new Set(query.languages ?? [])];
  if (languages.length > 0) {
    const names = languages.map((language, i) => ((params[`lang${i}`] = language), `@lang${i}`));
    const probe = `EXISTS (SELECT 1 FROM model_languages l WHERE l.language IN (${names.join(', ')}) AND l.model_id = m.id)`;
    if (languages.length === 1) joins.push('JOIN model_languages l0 ON l0.language = @lang0 AND l0.model_id = m.id');
    else where.push(probe);
    if (languages.length === 1) probes.push(probe);
  }
  if (query.titleLanguages?.length) {
    const names = query.titleLanguages.map((language, i) => ((params[`tl${i}`] = language), `@tl${i}`));
    where.push(`m.title_language IN (${names.join(', ')})`);
  }
  params.limit = query.pageSize;
  params.offset = (query.pageNumber - 1) * query.pageSize;
  const filtered = `${joins.join(' ')} WHERE ${where.join(' AND ')}`;
  const walked = `WHERE ${[...where, ...probes].join(' AND ')}`;
  const order = `ORDER BY ${sortOrders[query.sortBy]} LIMIT @limit OFFSET @offset`;
  return {
    params,
    count: `SELECT COUNT(*) AS n FROM models m ${filtered}`,
    page: (total) => `SELECT m.* FROM models m ${total > defaults.walkSortIndexAbove ? walked : filtered} ${order}`,
  };
}
