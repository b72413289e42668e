/** 16-bit signed mono PCM with its sample rate and the capture time of its first sample. */
export interface AudioFrame {
  readonly samples: Int16Array;
  readonly sampleRate: number;
  /** Capture time of the first sample, in ms (any monotonic clock the producer chooses). */
  readonly timestampMs: number;
}

export function createFrame(samples: Int16Array, sampleRate: number, timestampMs = 0): AudioFrame {
  if (!Number.isInteger(sampleRate) || sampleRate <= 0) {
    throw new RangeError(`sample rate must be a positive integer, got ${sampleRate}`);
  }
  return { samples, sampleRate, timestampMs };
}

export function frameDurationMs(frame: AudioFrame): number {
  return (frame.samples.length * 1000) / frame.sampleRate;
}

export function frameEndMs(frame: AudioFrame): number {
  return frame.timestampMs + frameDurationMs(frame);
}

/** Splits a frame into frames of `samplesPerFrame` samples; the last one may be shorter. */
export function splitFrame(frame: AudioFrame, samplesPerFrame: number): AudioFrame[] {
  if (!Number.isInteger(samplesPerFrame) || samplesPerFrame <= 0) {
    throw new RangeError(`samplesPerFrame must be a positive integer, got ${samplesPerFrame}`);
  }
  const frames: AudioFrame[] = [];
  for (let offset = 0; offset < frame.samples.length; offset += samplesPerFrame) {
    frames.push({
      samples: frame.samples.subarray(offset, offset + samplesPerFrame),
      sampleRate: frame.sampleRate,
      timestampMs: frame.timestampMs + (offset * 1000) / frame.sampleRate,
    });
  }
  return frames;
}

/** Joins frames of one sample rate; the result starts at the first frame's timestamp. */
export function concatFrames(frames: readonly AudioFrame[]): AudioFrame {
  if (frames.length === 0) throw new RangeError('concatFrames needs at least one frame');
  const sampleRate = frames[0]!.sampleRate;
  let length = 0;
  for (const frame of frames) {
    if (frame.sampleRate !== sampleRate) {
      throw new RangeError(`cannot join ${frame.sampleRate} Hz audio to ${sampleRate} Hz audio; resample first`);
    }
    length += frame.samples.length;
  }
  const samples = new Int16Array(length);
  let offset = 0;
  for (const frame of frames) {
    samples.set(frame.samples, offset);
    offset += frame.samples.length;
  }
  return { samples, sampleRate, timestampMs: frames[0]!.timestampMs };
}
