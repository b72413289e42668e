import { z } from 'zod';
import { expectationSchema, type Expectation } from '../../speech/index.js';

/**
 * `hints`: a Shoal extension of `POST /v1/asr` (the hosted service ignores it) — what the speaker is
 * expected to say, as a list of expectations (see docs/listening.md). Multipart sends it as a JSON string.
 */
export const hintsSchema = z.preprocess((value) => {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}, z.array(expectationSchema, { error: 'hints must be a JSON array of expectations, e.g. [{"kind":"digits","maxLength":4}]' }).max(20));

export type Hints = readonly Expectation[];
