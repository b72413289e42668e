import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRaw, parseRawResponse } from '../support/raw-http.js';
import { authHeaders, fixture, modelForm, startHarness, type Harness } from '../support/service-store-harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

/** A multipart body cut off inside a file part. */
const truncated = Buffer.from(
  '--XYZ\r\nContent-Disposition: form-data; name="title"\r\n\r\nabc\r\n--XYZ\r\nContent-Disposition: form-data; name="voices"; filename="a.wav"\r\nContent-Type: audio/wav\r\n\r\nRIFF....',
);

describe('hostile input gets a 4xx in the service shape', () => {
  it('answers a truncated multipart body with 400 on POST /model and PATCH /model/{id}', async () => {
    const headers = { ...authHeaders(h.users.alice), 'content-type': 'multipart/form-data; boundary=XYZ' };
    const created = await fetch(`${h.url}/model`, {
      method: 'POST',
      headers: authHeaders(h.users.alice),
      body: modelForm({ voices: [{ bytes: await fixture('slt_00.wav'), name: 'v.wav' }], texts: ['hello'] }),
    });
    const id = ((await created.json()) as { _id: string })._id;
    for (const [method, path] of [['POST', '/model'], ['PATCH', `/model/${id}`]] as const) {
      const response = await fetch(`${h.url}${path}`, { method, headers, body: truncated });
      expect(response.status, path).toBe(400);
      expect(await response.json()).toEqual({ status: 400, message: expect.stringMatching(/^multipart body could not be read .*send a complete multipart/) });
    }
  }, 60_000);

  it('answers GET /model with 64 tag values with 422 naming the limit', async () => {
    const query = Array.from({ length: 64 }, (_, i) => `tag=t${i}`).join('&');
    const response = await fetch(`${h.url}/model?${query}`, { headers: authHeaders(h.users.alice) });
    expect(response.status).toBe(422);
    expect(await response.json()).toEqual([{ loc: ['query', 'tag'], type: 'too_long', msg: 'at most 32 tag values per query, got 64', in: 'query' }]);
  });

  it('answers routing errors raised before authentication as {status, message}', async () => {
    const tooLong = await fetch(`${h.url}/model/${'a'.repeat(300)}`);
    expect(await tooLong.json()).toEqual({ status: 414, message: expect.stringMatching(/path segment is too long/) });
    const raw = await openRaw(h.url, 'GET /model/%zz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(parseRawResponse((await raw.closed).text)).toEqual({ status: 400, body: { status: 400, message: expect.stringMatching(/bad percent-encoding/) } });
  });
});
