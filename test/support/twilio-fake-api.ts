import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the fake Twilio REST API received. */
export interface TwilioApiRequest {
  method: string;
  path: string;
  params: Record<string, string>;
  /** Wall time it arrived (to order it against stream events). */
  atMs: number;
}

/**
 * A stand-in for Twilio's REST API (2010-04-01 Calls resource), shaped after its documented requests and
 * responses: form-encoded bodies, HTTP basic auth with the account SID and auth token, JSON call resources,
 * JSON errors with `code`/`message`/`status`. Creating a call returns a new CallSid; updating a call it did not
 * create (or a `CA…` it was told about) is a 404.
 */
export class FakeTwilioApi {
  readonly requests: TwilioApiRequest[] = [];
  readonly knownCalls = new Set<string>();
  private server!: Server;
  private nextCall = 1;

  constructor(
    readonly accountSid: string,
    readonly authToken: string,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const path = new URL(request.url ?? '/', 'http://x').pathname;
        const params = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString()));
        const json = (status: number, body: unknown) => response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
        const expected = `Basic ${Buffer.from(`${this.accountSid}:${this.authToken}`).toString('base64')}`;
        if (request.headers.authorization !== expected) return json(401, { code: 20003, message: 'Authenticate', more_info: 'https://www.twilio.com/docs/errors/20003', status: 401 });
        this.requests.push({ method: request.method ?? '', path, params, atMs: Date.now() });
        const base = `/2010-04-01/Accounts/${this.accountSid}/Calls`;
        if (request.method === 'POST' && path === `${base}.json`) {
          if (!params['To'] || !params['From'] || !(params['Twiml'] || params['Url'])) return json(400, { code: 21201, message: 'To, From and Twiml or Url are required', status: 400 });
          const sid = `CA${String(this.nextCall++).padStart(32, '0')}`;
          this.knownCalls.add(sid);
          return json(201, this.call(sid, 'queued', params));
        }
        const update = new RegExp(`^${base}/(CA[0-9a-zA-Z]+)\\.json$`).exec(path);
        if (request.method === 'POST' && update) {
          const sid = update[1]!;
          if (!this.knownCalls.has(sid)) return json(404, { code: 20404, message: `The requested resource ${path} was not found`, status: 404 });
          return json(200, this.call(sid, params['Status'] ?? 'in-progress', params));
        }
        json(404, { code: 20404, message: `The requested resource ${path} was not found`, status: 404 });
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Requests to update one call. */
  updates(callSid: string): TwilioApiRequest[] {
    return this.requests.filter((r) => r.path.endsWith(`/Calls/${callSid}.json`));
  }

  private call(sid: string, status: string, params: Record<string, string>) {
    return {
      sid,
      account_sid: this.accountSid,
      to: params['To'] ?? '+14155550100',
      from: params['From'] ?? '+14155550199',
      status,
      direction: 'outbound-api',
      api_version: '2010-04-01',
      date_created: new Date().toUTCString(),
      uri: `/2010-04-01/Accounts/${this.accountSid}/Calls/${sid}.json`,
    };
  }
}
