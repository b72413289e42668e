import { SileroVad } from '../../engines/index.js';
import type { ServiceEngines } from '../context.js';

/**
 * Readies what a `/v1/listen` socket (and `/v1/asr`) needs before the first client: a recognizer's decoder loaded
 * and run once on a little audio, and the voice activity detector's model loaded and run once. Without it the
 * first socket's first results wait for both loads.
 */
export async function warmListening(engines: ServiceEngines): Promise<void> {
  const asr = engines.asr();
  await (asr as Partial<{ preload(): Promise<number> }>).preload?.();
  const quiet = new Int16Array(8000);
  const recognizer = asr.createRecognizer({ language: 'en' });
  const vad = new SileroVad();
  try {
    await Promise.all([recognizer.write(quiet).then(() => recognizer.finish()), vad.ready().then(() => vad.probability(quiet.subarray(0, vad.frameSamples)))]);
  } finally {
    recognizer.close();
    vad.release();
  }
}
