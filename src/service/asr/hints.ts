import { z } from 'zod';
import type { Expectation } from '../../speech/index.js';

/**
 * `hints`: a Shoal extension of `POST /v1/asr` (the hosted service ignores it) — what the speaker is
 * expected to say, as a list of expectations (see docs/listening.md). Multipart sends it as a JSON string.
 */
const phrase = z.string().min(1).max(200);
const list = z.array(phrase).min(1).max(500);
const length = z.number().int().min(1).max(64);
export const hintSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('free') }),
  z.strictObject({ kind: z.literal('yes-no') }),
  z.strictObject({ kind: z.literal('digits'), minLength: length.optional(), maxLength: length.optional() }),
  z.strictObject({ kind: z.literal('number'), min: z.number().optional(), max: z.number().optional() }),
  z.strictObject({ kind: z.literal('time') }),
  z.strictObject({ kind: z.literal('date') }),
  z.strictObject({ kind: z.literal('choice'), options: list }),
  z.strictObject({ kind: z.literal('phrases'), phrases: list, keywords: list.optional() }),
  z.strictObject({ kind: z.literal('name'), names: list }),
], { error: 'each hint needs a kind: free, yes-no, digits, number, time, date, choice, phrases or name' });

export const hintsSchema = z.preprocess((value) => {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}, z.array(hintSchema, { error: 'hints must be a JSON array of expectations, e.g. [{"kind":"digits","maxLength":4}]' }).max(20));

export type Hints = readonly Expectation[];
