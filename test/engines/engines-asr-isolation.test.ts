import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import koffi from 'koffi';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { decodeAudioAt } from '../../src/audio/index.js';
import { PocketSphinxEngine, type Hypothesis, type StreamingRecognizer } from '../../src/engines/index.js';
import { CepstralMeanState } from '../../src/engines/pocketsphinx/cepstral-mean.js';
import { recordingBand, telephoneNarrowing } from '../../src/engines/pocketsphinx/utterance-band.js';
import { noise, readPcmWav, wordErrors } from '../support/engines-fixtures.js';

const callsDir = join(import.meta.dirname, '../fixtures/calls');
// The caller's first turn only (0-5 s of the call): each test decodes it several times, and the whole call
// made this the slowest file of the suite.
const turnSamples = 5 * 16000;
const booking16k = readPcmWav(join(callsDir, 'booking-16k.wav')).samples.subarray(0, turnSamples);
const bookingTruth = 'hello i would like to book a table for two people tonight';

// One idle decoder, so every request and every new recognizer reuses the decoder used just before. Both
// hear in the band they are told (the telephone call below is band-limited audio at 16 kHz), except `detecting`.
const pooled = new PocketSphinxEngine({ idleDecoders: 1, detectTelephoneBand: false });
// No idle decoders: every request and recognizer gets a newly made decoder.
const fresh = new PocketSphinxEngine({ idleDecoders: 0, detectTelephoneBand: false });
const detecting = new PocketSphinxEngine({ idleDecoders: 1 });

let previousAudio: Array<{ name: string; pcm: Int16Array }>;

beforeAll(async () => {
  const telephone = await decodeAudioAt(readFileSync(join(callsDir, 'booking-8k-ulaw.wav')), 16000);
  previousAudio = [
    { name: '8 kHz mu-law call upsampled to 16 kHz', pcm: telephone.samples.subarray(0, turnSamples) },
    { name: 'white noise', pcm: noise(3 * 16000, 3000, 7) },
    { name: 'digital silence', pcm: new Int16Array(3 * 16000) },
  ];
});

afterAll(async () => {
  await pooled.shutdown();
  await fresh.shutdown();
  await detecting.shutdown();
});

async function stream(recognizer: StreamingRecognizer, pcm: Int16Array): Promise<Hypothesis> {
  for (let at = 0; at < pcm.length; at += 1600) await recognizer.write(pcm.subarray(at, at + 1600));
  return recognizer.finish();
}

/** Streams `pcm` through a recognizer of its own and closes it; the next lease then reuses its decoder. */
async function streamAndClose(engine: PocketSphinxEngine, pcm: Int16Array): Promise<Hypothesis> {
  const recognizer = engine.createRecognizer();
  const result = await stream(recognizer, pcm);
  recognizer.close();
  // close() returns the decoder on a later tick; let it go out before the next lease is asked for.
  await new Promise((resolve) => setImmediate(resolve));
  return result;
}

/**
 * What a newly made decoder gives for `pcm`, streamed or whole (`fresh` makes a decoder per request, so its result
 * for the same audio is the same): each is decoded once for the file, not once per test.
 */
const freshResults = new Map<string, Promise<Hypothesis>>();
function freshlyHeard(how: 'streamed' | 'transcribed', name: string, pcm: Int16Array): Promise<Hypothesis> {
  const key = `${how} ${name}`;
  let result = freshResults.get(key);
  if (!result) {
    result = how === 'streamed' ? streamAndClose(fresh, pcm) : fresh.transcribe(pcm);
    freshResults.set(key, result);
  }
  return result;
}
const freshBooking = (how: 'streamed' | 'transcribed') => freshlyHeard(how, 'booking', booking16k);
const freshCall = (how: 'streamed' | 'transcribed') => freshlyHeard(how, 'call', previousAudio[0]!.pcm);

describe('pocketsphinx results do not depend on audio decoded before', () => {
  test('whole-buffer transcription after other requests equals the result of a newly made decoder', async () => {
    const reference = await freshBooking('transcribed');
    expect(wordErrors(bookingTruth, reference.text).errors).toBeLessThanOrEqual(5);
    for (const previous of previousAudio) {
      await pooled.transcribe(previous.pcm);
      expect(await pooled.transcribe(booking16k), `after ${previous.name}`).toEqual(reference);
    }
    // A decoder that streamed (which switches pocketsphinx to live CMN) is reset before it transcribes.
    await streamAndClose(pooled, previousAudio[0]!.pcm);
    expect(await pooled.transcribe(booking16k), 'after streaming the 8 kHz call').toEqual(reference);
  }, 120_000);

  test('a newly leased streaming recognizer gives what a newly made decoder gives, whatever its decoder heard', async () => {
    const reference = await freshBooking('streamed');
    expect(wordErrors(bookingTruth, reference.text).errors).toBeLessThanOrEqual(5);
    for (const previous of previousAudio) {
      await streamAndClose(pooled, previous.pcm);
      expect(await streamAndClose(pooled, booking16k), `after ${previous.name}`).toEqual(reference);
    }
    await pooled.transcribe(previousAudio[0]!.pcm);
    expect(await streamAndClose(pooled, booking16k), 'after transcribing the 8 kHz call').toEqual(reference);
  }, 120_000);

  test('within one recognizer the cepstral mean carries over from one utterance to the next', async () => {
    const reference = await freshBooking('streamed');
    const recognizer = pooled.createRecognizer();
    await stream(recognizer, previousAudio[0]!.pcm);
    const afterTelephone = await stream(recognizer, booking16k);
    recognizer.close();
    // The caller's own earlier audio shapes the normalisation (that is the adaptation live CMN is for);
    // the 8 kHz line's mean is far from this 16 kHz recording's, so the words change.
    expect(afterTelephone.text).not.toBe(reference.text);
  }, 60_000);

  test('a telephone-band recognizer hears with the telephone mean and model, and the next ordinary lease as a new decoder would', async () => {
    const call = previousAudio[0]!.pcm;
    const ordinary = await freshCall('streamed');
    const telephoneLease = async () => {
      const telephone = pooled.createRecognizer({ telephoneBand: true });
      const heard = await stream(telephone, call);
      telephone.close();
      await new Promise((resolve) => setImmediate(resolve));
      return heard;
    };
    const heard = await telephoneLease();
    expect(wordErrors(bookingTruth, heard.text).errors).toBeLessThan(wordErrors(bookingTruth, ordinary.text).errors);
    expect(await streamAndClose(pooled, booking16k)).toEqual(await freshBooking('streamed'));
    expect(await streamAndClose(pooled, call)).toEqual(ordinary);
    // The same decoder switched back and forth: each band's model is made again from the model's files.
    expect(await telephoneLease()).toEqual(heard);
    expect(await streamAndClose(pooled, call)).toEqual(ordinary);
  }, 90_000);
});

describe('a call not said to be telephone audio is heard in the band its audio shows', () => {
  test('each utterance in its own band, with that band\'s normalisation of the call so far', async () => {
    const call = previousAudio[0]!.pcm;
    // Audio heard in the telephone band is narrowed to it first.
    const narrowed = async (recognizer: StreamingRecognizer, pcm: Int16Array) => {
      const narrowing = telephoneNarrowing();
      for (let at = 0; at < pcm.length; at += 1600) await recognizer.write(narrowing.filter(pcm.subarray(at, at + 1600)));
      return recognizer.finish();
    };
    const told = fresh.createRecognizer({ telephoneBand: true });
    const toldFirst = await narrowed(told, call);
    const toldAgain = await narrowed(told, call);
    told.close();
    expect(toldFirst).not.toEqual(await freshCall('streamed'));
    const recognizer = detecting.createRecognizer();
    // Begun in the wide band, then heard again from its first sample in the telephone band.
    expect(await stream(recognizer, call)).toEqual(toldFirst);
    // Begun in the telephone band, then heard again in the wide band, from its starting mean: the telephone
    // utterance's normalisation is not the wide band's.
    expect(await stream(recognizer, booking16k)).toEqual(await freshBooking('streamed'));
    // Heard again from its first sample in the telephone band, the utterance goes on from that band's
    // normalisation of the first. (Its words, not their times: live CMN moves with the sizes of the pieces
    // written, and the catch-up decode writes what was heard so far in one.)
    expect(toldAgain.text).not.toBe(toldFirst.text);
    expect((await stream(recognizer, call)).text).toBe(toldAgain.text);
    recognizer.close();
  }, 120_000);

  test('a whole recording is transcribed in the band it shows', async () => {
    const call = previousAudio[0]!.pcm;
    const heard = recordingBand(call);
    expect(heard.telephone).toBe(true);
    expect(await detecting.transcribe(call)).toEqual(await fresh.transcribe(heard.pcm, { telephoneBand: true }));
    expect(await detecting.transcribe(booking16k)).toEqual(await freshBooking('transcribed'));
    expect(await detecting.transcribe(call)).not.toEqual(await freshCall('transcribed'));
  }, 60_000);
});

describe('cepstral mean state capture', () => {
  function memoryFilledWith(byte: number): unknown {
    const memory = koffi.alloc('uint8', 256);
    koffi.encode(memory, 0, 'uint8', new Array<number>(256).fill(byte), 256);
    return memory;
  }

  test('memory that does not hold sphinxbase structures is refused, so such a decoder is never reused', () => {
    expect(CepstralMeanState.capture(memoryFilledWith(0x41))).toBeNull();
    expect(CepstralMeanState.capture(null)).toBeNull();
  });

  test('a feature computation without CMN has nothing to restore', () => {
    expect(CepstralMeanState.capture(memoryFilledWith(0))).toBeUndefined();
  });
});
