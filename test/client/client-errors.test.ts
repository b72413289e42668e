import { afterEach, describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  BadRequestError,
  NotFoundError,
  parseRetryAfter,
  parseValidationIssues,
  PaymentRequiredError,
  PermissionDeniedError,
  SpeechClient,
  ValidationError,
} from '../../src/client/index.js';
import { sendJson, startFakeServer, type FakeServer } from '../support/client-fakes.js';

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('typed errors', () => {
  it.each([
    [400, BadRequestError, 'Invalid sample rate 22050 for format mp3'],
    [401, AuthenticationError, 'Invalid Token'],
    [402, PaymentRequiredError, 'API key invalid or no credit left'],
    [403, PermissionDeniedError, 'not yours'],
    [404, NotFoundError, 'no such model'],
  ])('maps HTTP %i to its class with status, message and raw body', async (status, kind, message) => {
    server = await startFakeServer({ http: (_req, res) => sendJson(res, status, { status, message }) });
    const client = new SpeechClient({ baseUrl: server.url, apiKey: 'k' });
    const error = await client.voiceModels.get('m1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(kind);
    expect((error as InstanceType<typeof kind>).status).toBe(status);
    expect((error as Error).message).toContain(message);
    expect((error as InstanceType<typeof kind>).body).toEqual({ status, message });
    expect(server.requests).toHaveLength(1);
  });

  const shapes: [string, unknown][] = [
    ['a top-level array', [{ loc: ['body', 'text'], type: 'missing', msg: 'Field required', in: 'body' }]],
    ['{detail: [...]}', { detail: [{ loc: ['body', 'text'], msg: 'Field required', type: 'missing' }] }],
    ['{errors: [...]} (pydantic list)', { errors: [{ loc: ['body', 'text'], msg: 'Field required', type: 'missing', input: {} }] }],
  ];
  it.each(shapes)('parses a 422 body given as %s', async (_name, body) => {
    server = await startFakeServer({ http: (_req, res) => sendJson(res, 422, body) });
    const error = await new SpeechClient({ baseUrl: server.url, apiKey: 'k' }).designVoice({ instruction: 'x' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    const validation = error as ValidationError;
    expect(validation.status).toBe(422);
    expect(validation.issues).toEqual([{ loc: ['body', 'text'], message: 'Field required', type: 'missing' }]);
    expect(validation.message).toContain('body.text: Field required');
    expect(validation.body).toEqual(body);
  });

  it('reads a plain-string 422 detail', () => {
    expect(parseValidationIssues({ detail: 'bad thing' })).toEqual([{ loc: [], message: 'bad thing', type: 'value_error' }]);
  });

  it('parses Retry-After in seconds and as an HTTP date', () => {
    expect(parseRetryAfter('2')).toBe(2000);
    expect(parseRetryAfter('0.5')).toBe(500);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:03 GMT', now)).toBe(3000);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(null)).toBeUndefined();
  });

  it('keeps a non-JSON error body as text', async () => {
    server = await startFakeServer({ http: (_req, res) => res.writeHead(403, { 'content-type': 'text/plain' }).end('forbidden by proxy') });
    const error = await new SpeechClient({ baseUrl: server.url, apiKey: 'k' }).wallet.package().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PermissionDeniedError);
    expect((error as PermissionDeniedError).body).toBe('forbidden by proxy');
  });
});
