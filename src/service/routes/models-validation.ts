import type { ValidationIssue } from '../http/errors.js';
import type { Visibility } from '../store/types.js';
import { listField, type ModelForm, type UploadedFile } from './models-form.js';

export const visibilities: readonly Visibility[] = ['public', 'unlist', 'private'];
const maxTitleLength = 256;
const maxDescriptionLength = 5_000;
export const maxTags = 32;
const maxTagLength = 64;

/** Collects 422 issues for one form instead of stopping at the first. */
export class IssueList {
  readonly issues: ValidationIssue[] = [];

  add(field: (string | number)[], type: string, msg: string, where: ValidationIssue['in'] = 'body'): void {
    this.issues.push({ loc: [where ?? 'body', ...field.map(String)], type, msg, in: where });
  }
}

export function single(form: ModelForm, name: string, issues: IssueList): string | undefined {
  const values = form.fields.get(name);
  if (!values) return undefined;
  if (values.length > 1) issues.add([name], 'value_error', `${name} was sent ${values.length} times; send it once`);
  return values[0];
}

export function booleanField(form: ModelForm, name: string, fallback: boolean, issues: IssueList): boolean {
  const value = single(form, name, issues)?.trim().toLowerCase();
  if (value === undefined || value === '') return fallback;
  if (['true', '1', 'yes', 'on'].includes(value)) return true;
  if (['false', '0', 'no', 'off'].includes(value)) return false;
  issues.add([name], 'bool_parsing', `${name} must be true or false, got "${value}"`);
  return fallback;
}

export function titleField(value: string | undefined, issues: IssueList, required: boolean): string | undefined {
  if (value === undefined) {
    if (required) issues.add(['title'], 'missing', 'title is required: name the voice model');
    return undefined;
  }
  const title = value.trim();
  if (!title) issues.add(['title'], 'string_too_short', 'title must not be empty');
  else if (title.length > maxTitleLength) issues.add(['title'], 'string_too_long', `title must be at most ${maxTitleLength} characters`);
  return title;
}

export function descriptionField(value: string | undefined, issues: IssueList): string | undefined {
  if (value !== undefined && value.length > maxDescriptionLength) {
    issues.add(['description'], 'string_too_long', `description must be at most ${maxDescriptionLength} characters`);
  }
  return value;
}

export function visibilityField(value: string | undefined, issues: IssueList): Visibility | undefined {
  if (value === undefined) return undefined;
  if ((visibilities as string[]).includes(value)) return value as Visibility;
  issues.add(['visibility'], 'enum', `visibility must be one of ${visibilities.join(', ')}, got "${value}"`);
  return undefined;
}

export function tagsField(form: ModelForm, issues: IssueList): string[] | undefined {
  const tags = listField(form.fields.get('tags'));
  if (!tags) return undefined;
  const unique = [...new Set(tags.map((tag) => tag.trim()).filter((tag) => tag.length > 0))];
  if (unique.length > maxTags) issues.add(['tags'], 'too_long', `at most ${maxTags} tags`);
  unique.forEach((tag, i) => {
    if (tag.length > maxTagLength) issues.add(['tags', i], 'string_too_long', `tag must be at most ${maxTagLength} characters`);
  });
  return unique;
}

const imageSignatures: [string, (b: Buffer) => boolean][] = [
  ['png', (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))],
  ['jpg', (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff],
  ['gif', (b) => b.subarray(0, 4).toString('latin1') === 'GIF8'],
  ['webp', (b) => b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP'],
];

/** The cover file's image type (png, jpg, gif, webp), or an issue when it is not an image. */
export function coverField(form: ModelForm, issues: IssueList): { file: UploadedFile; extension: string } | undefined {
  const covers = form.files.get('cover_image');
  if (!covers || covers.length === 0) {
    const text = form.fields.get('cover_image');
    if (text && text.some((value) => value.trim() !== '')) {
      issues.add(['cover_image'], 'value_error', 'cover_image must be an uploaded image file, not a text field');
    }
    return undefined;
  }
  if (covers.length > 1) issues.add(['cover_image'], 'value_error', 'send one cover_image');
  const file = covers[0]!;
  const match = imageSignatures.find(([, test]) => test(Buffer.from(file.head)));
  if (!match) {
    issues.add(['cover_image'], 'value_error', 'cover_image is not a PNG, JPEG, GIF or WebP image');
    return undefined;
  }
  return { file, extension: match[0] };
}

export const coverTypes: Record<string, string> = { png: 'image/png', jpg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp' };

export function rejectUnknown(form: ModelForm, known: readonly string[], issues: IssueList): void {
  for (const name of [...form.fields.keys(), ...form.files.keys()]) {
    if (!known.includes(name)) issues.add([name], 'extra_forbidden', `unknown field ${name}; remove it`);
  }
}
