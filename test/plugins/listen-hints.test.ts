import { lastValueFrom, from } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import type { CallSpeechToText, Expectation } from '../../src/agent/index.js';
import { readListenQuery } from '../../src/service/listen/query.js';
import { deepgram } from '../../plugins/deepgram/index.js';
import { DeepgramDouble } from '../support/deepgram-double.js';
import { toneUtterance } from '../support/provider-audio.js';

const digits: Expectation = { kind: 'digits', minLength: 4, maxLength: 4 };
const query = (text: string) => new URLSearchParams(text);

describe("/v1/listen's hints: the call's expectations whole, as /v1/asr takes them", () => {
  it('are read beside keyterm and keywords, which stay one phrases expectation', () => {
    const settings = readListenQuery(query(`encoding=mulaw&sample_rate=8000&hints=${encodeURIComponent(JSON.stringify([digits]))}&keyterm=parcel`));
    expect(settings.hints).toEqual([digits, { kind: 'phrases', phrases: ['parcel'], keywords: ['parcel'] }]);
    expect(readListenQuery(query('encoding=mulaw&sample_rate=8000')).hints).toBeUndefined();
  });

  it('that are not a JSON array of expectations are a 400 that says what to send', () => {
    for (const bad of ['{nope', JSON.stringify({ kind: 'digits' }), JSON.stringify([{ kind: 'telepathy' }])]) {
      expect(() => readListenQuery(query(`encoding=mulaw&sample_rate=8000&hints=${encodeURIComponent(bad)}`))).toThrow(
        expect.objectContaining({ status: 400, message: expect.stringMatching(/^hints: .*e\.g\. hints=\[\{"kind":"digits"/) }),
      );
    }
  });
});

describe('deepgram({ sendHints })', () => {
  let double: DeepgramDouble | undefined;
  let call: CallSpeechToText | undefined;
  afterEach(async () => {
    call?.release();
    await double?.close();
    call = undefined;
    double = undefined;
  });

  it("sends the expectations as hints, and a new socket between turns when they change; Deepgram's default sends none", async () => {
    double = await DeepgramDouble.start({ script: ['4192.', 'Yes.'] });
    call = deepgram({ apiKey: 'test-key', baseUrl: double.url, sendHints: true, maxKeyterms: 0 }).forCall({ callerSampleRate: () => 8000 });
    call.expect?.([digits]);
    await lastValueFrom(call.transcribe(from(toneUtterance(8000, 300, 200))));
    expect(JSON.parse(double.seen[0]!.query.get('hints')!)).toEqual([digits]);
    expect(double.seen[0]!.query.getAll('keyterm')).toEqual([]);
    call.expect?.([{ kind: 'yes-no' }]);
    await lastValueFrom(call.transcribe(from(toneUtterance(8000, 300, 200))));
    expect(double.seen).toHaveLength(2);
    expect(JSON.parse(double.seen[1]!.query.get('hints')!)).toEqual([{ kind: 'yes-no' }]);

    call.release();
    call = deepgram({ apiKey: 'test-key', baseUrl: double.url }).forCall({ callerSampleRate: () => 8000 });
    call.expect?.([{ kind: 'choice', options: ['terrace'] }]);
    await lastValueFrom(call.transcribe(from(toneUtterance(8000, 300, 200))));
    expect(double.seen[2]!.query.get('hints')).toBeNull();
    expect(double.seen[2]!.query.getAll('keyterm')).toEqual(['terrace']);
  });
});
