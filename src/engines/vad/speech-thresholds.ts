/**
 * How a speech probability stream is read, shared by the pipeline's utterances (`segmentUtterances`) and the
 * service's `/v1/listen` segmenter. All durations in ms.
 */
export const speechDefaults = {
  /** Probability at or above which a frame is speech. */
  activationThreshold: 0.5,
  /** Probability below which a frame is silence (hysteresis between the two). */
  deactivationThreshold: 0.35,
  /** Audio kept from before speech starts and handed to recognition with it. */
  prefixPaddingMs: 300,
  /** An utterance is ended here even without silence. */
  maxUtteranceMs: 30_000,
} as const;
