import { RequestValidationError } from '../http/errors.js';
import type { ModelQuery, SortBy } from '../store/types.js';
import { IssueList, maxTags } from './models-validation.js';

export const defaults = {
  pageSize: 10,
  pageNumber: 1,
  /** Largest page a caller may ask for. */
  maxPageSize: 100,
  sortBy: 'score' as SortBy,
};

const sortValues: readonly SortBy[] = ['score', 'task_count', 'created_at'];
const known = ['page_size', 'page_number', 'title', 'tag', 'self', 'author_id', 'language', 'title_language', 'sort_by'];

/** Values of a query parameter sent as `k=a&k=b`, `k[]=a`, `k[0]=a` (the official SDK's form) or `k=a`. */
function values(query: Record<string, unknown>, name: string): string[] | undefined {
  const found: string[] = [];
  for (const [key, value] of Object.entries(query)) {
    const base = key.replace(/\[\d*\]$/, '');
    if (base !== name) continue;
    for (const item of Array.isArray(value) ? value : [value]) if (item !== undefined) found.push(String(item));
  }
  return found.length ? found : undefined;
}

function integer(query: Record<string, unknown>, name: string, fallback: number, max: number, issues: IssueList): number {
  const raw = values(query, name);
  if (!raw) return fallback;
  const value = Number(raw[0]);
  if (raw.length > 1 || !/^\s*\d+\s*$/.test(raw[0]!) || !Number.isSafeInteger(value)) {
    issues.add([name], 'int_parsing', `${name} must be a whole number`, 'query');
  } else if (value < 1) {
    issues.add([name], 'greater_than_equal', `${name} must be at least 1`, 'query');
  } else if (value > max) {
    issues.add([name], 'less_than_equal', `${name} must be at most ${max}`, 'query');
  } else {
    return value;
  }
  return fallback;
}

/** Parses GET /model query parameters; 422 (in the interface's array shape) on bad values. */
export function parseModelQuery(query: Record<string, unknown>, viewerId: string): ModelQuery {
  const issues = new IssueList();
  for (const key of Object.keys(query)) {
    if (!known.includes(key.replace(/\[\d*\]$/, ''))) issues.add([key], 'extra_forbidden', `unknown query parameter ${key}`, 'query');
  }
  const pageSize = integer(query, 'page_size', defaults.pageSize, defaults.maxPageSize, issues);
  const pageNumber = integer(query, 'page_number', defaults.pageNumber, Number.MAX_SAFE_INTEGER, issues);
  const sortRaw = values(query, 'sort_by')?.[0];
  let sortBy = defaults.sortBy;
  if (sortRaw !== undefined) {
    if ((sortValues as string[]).includes(sortRaw)) sortBy = sortRaw as SortBy;
    else issues.add(['sort_by'], 'enum', `sort_by must be one of ${sortValues.join(', ')}, got "${sortRaw}"`, 'query');
  }
  const selfRaw = values(query, 'self')?.[0]?.toLowerCase();
  let self = false;
  if (selfRaw !== undefined) {
    if (['true', '1'].includes(selfRaw)) self = true;
    else if (!['false', '0'].includes(selfRaw)) issues.add(['self'], 'bool_parsing', 'self must be true or false', 'query');
  }
  const split = (name: string) => values(query, name)?.flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);
  for (const name of ['tag', 'language', 'title_language']) {
    const count = new Set(split(name)).size;
    // A model carries at most maxTags of each, so a longer filter could match nothing.
    if (count > maxTags) issues.add([name], 'too_long', `at most ${maxTags} ${name} values per query, got ${count}`, 'query');
  }
  if (issues.issues.length) throw new RequestValidationError(issues.issues);
  const title = values(query, 'title')?.[0]?.trim();
  const authorId = self ? viewerId : values(query, 'author_id')?.[0];
  return {
    viewerId,
    pageSize,
    pageNumber,
    sortBy,
    ...(title ? { title } : {}),
    ...(authorId ? { authorId } : {}),
    ...(split('tag')?.length ? { tags: split('tag') } : {}),
    ...(split('language')?.length ? { languages: split('language') } : {}),
    ...(split('title_language')?.length ? { titleLanguages: split('title_language') } : {}),
  };
}
