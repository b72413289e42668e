import * as serializers from '@elevenlabs/elevenlabs-js/serialization/index.js';
import { from, lastValueFrom, toArray } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { elevenlabs } from '../../plugins/elevenlabs/index.js';
import { ElevenLabsDouble } from '../support/elevenlabs-double.js';

// The SDK ships the multi-context socket's message schemas (not a socket client): every message each way must be one of them.
const clientSchemas = [serializers.InitialiseContext, serializers.SendTextMulti, serializers.FlushContext, serializers.CloseContext, serializers.CloseSocket];
const serverSchemas = [serializers.AudioOutputMulti, serializers.FinalOutputMulti];
const strictly = { unrecognizedObjectKeys: 'fail' } as const;
const fits = (schemas: ReadonlyArray<{ parse(raw: unknown, options?: object): { ok: boolean } }>, message: unknown) => schemas.some((schema) => schema.parse(message, strictly).ok);

/** The double and the adapter speak ElevenLabs' multi-context protocol as the official SDK (`@elevenlabs/elevenlabs-js`) types it. */
describe('ElevenLabs double, checked with @elevenlabs/elevenlabs-js', () => {
  let double: ElevenLabsDouble | undefined;
  afterEach(async () => {
    await double?.close();
    double = undefined;
  });

  it('every message the adapter sends and the double answers fits the SDK\'s schemas', async () => {
    double = await ElevenLabsDouble.start();
    const tts = elevenlabs({ apiKey: 'test-key', baseUrl: double.url });
    await lastValueFrom(tts.speak({ text$: from(['Hello there.', 'Table for two?']), sampleRate: 16000 }).pipe(toArray()));
    tts.close();
    const seen = double.seen[0]!;
    expect(seen.messages.length).toBeGreaterThan(3);
    for (const message of seen.messages) expect(fits(clientSchemas, message), JSON.stringify(message)).toBe(true);
    expect(seen.sent.length).toBeGreaterThan(2);
    for (const message of seen.sent) expect(fits(serverSchemas, message), JSON.stringify(message).slice(0, 200)).toBe(true);
    const final = serializers.FinalOutputMulti.parseOrThrow(seen.sent.at(-1));
    expect(final.isFinal).toBe(true);
    const audio = serializers.AudioOutputMulti.parseOrThrow(seen.sent[0]);
    expect(audio.alignment?.chars?.length).toBeGreaterThan(0);
  });

  it('the schemas tell a wrong shape apart', () => {
    expect(fits(serverSchemas, { audio: 'AAAA', context_id: 'snake-case is the client\'s' })).toBe(false);
    expect(fits(clientSchemas, { contextId: 'camel-case is the server\'s', close_context: true })).toBe(false);
  });
});
