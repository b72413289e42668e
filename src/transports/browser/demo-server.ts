import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { StartCall } from '../call-request.js';
import { handleProbe, startProcessMetrics, type Readiness } from '../../metrics/index.js';
import { CarrierEndpoints, type StreamTokens, type TelephonyEndpoint, type TelephonyTransport } from '../telephony/index.js';
import { answerClientError, answerRawSocket, applyConnectionLimits, connectionDefaults, httpServerOptions, type ConnectionLimits } from '../../service/index.js';
import { checkUpgrade, upgradeGuardDefaults, type UpgradeGuardOptions } from '../upgrade-guard.js';
import { BrowserEndpoint } from './browser-endpoint.js';
import type { BrowserTransport } from './browser-transport.js';
import { buildDemoPage, demoPageHandler, type AgentListing } from './demo-page.js';
import type { Clock } from '../../pipeline/clock.js';

export interface DemoServerOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  browserPath: string;
  telephonyPath: string;
  /** The agents the page's picker offers. */
  agents: AgentListing;
  startCall: StartCall<BrowserTransport | TelephonyTransport>;
  /** Answers `/healthz`, `/readyz` and `/metrics` when given (what `/readyz` reports). */
  readiness?: Readiness;
  onError?(error: unknown, where: string): void;
  /** When set, phone media streams must carry a token issued here (see the Twilio answer webhook). */
  streamTokens?: StreamTokens;
  /** When set, the other carriers' media streams must carry `?key=` with this value. */
  streamAccessKey?: string;
  /** HTTP handlers tried before the page (e.g. carrier webhooks); one returns true when it took the request. */
  routes?: Array<(request: IncomingMessage, response: ServerResponse) => boolean>;
  /** Origins and access token the browser WebSocket accepts. */
  guard: UpgradeGuardOptions;
  /** The same timeouts and connection cap as the speech service. */
  connections: ConnectionLimits;
  /** Times the calls' frames, pacing and timers on both transports; the wall clock when absent. */
  clock?: Clock;
}

export const demoServerDefaults = {
  host: '127.0.0.1',
  port: 3000,
  browserPath: '/ws',
  telephonyPath: '/telephony',
  guard: upgradeGuardDefaults,
  connections: connectionDefaults,
};

export interface DemoServer {
  /** The page's URL, e.g. http://127.0.0.1:3000/ */
  readonly url: string;
  readonly browser: BrowserEndpoint;
  /** Twilio's media-stream endpoint (at `telephonyPath`). */
  readonly telephony: TelephonyEndpoint;
  /** Every carrier's endpoint: Twilio's and those at `telephonyPath/<carrier>`. */
  readonly carriers: CarrierEndpoints;
  readonly http: Server;
  close(): Promise<void>;
}

/** One HTTP server: the demo page at `/`, browser calls on `browserPath`, phone media streams on `telephonyPath[/carrier]`. */
export async function startDemoServer(options: Partial<DemoServerOptions> & Pick<DemoServerOptions, 'agents' | 'startCall'>): Promise<DemoServer> {
  const o = { ...demoServerDefaults, ...options };
  const assets = await buildDemoPage();
  const clock = o.clock ? { clock: o.clock } : {};
  const browser = new BrowserEndpoint({ path: o.browserPath, startCall: o.startCall, ...clock, onError: (error, callId) => o.onError?.(error, `browser call ${callId}`) });
  const carriers = new CarrierEndpoints({
    path: o.telephonyPath,
    startCall: o.startCall,
    tokens: o.streamTokens,
    accessKey: o.streamAccessKey,
    ...clock,
    onError: (error, streamSid) => o.onError?.(error, `telephony stream ${streamSid ?? '(not started)'}`),
  });
  const telephony = carriers.byCarrier.twilio;
  const page = demoPageHandler(assets, o.agents);
  const routes = o.routes ?? [];
  const readiness = o.readiness;
  if (readiness) startProcessMetrics();
  const http = createServer(httpServerOptions(o.connections), (request, response) => {
    if (readiness && handleProbe(request, response, readiness)) return;
    if (!routes.some((route) => route(request, response))) page(request, response);
  });
  applyConnectionLimits(http, o.connections);
  http.on('upgrade', (request, socket, head) => {
    socket.on('error', () => socket.destroy());
    const refusal = new URL(request.url ?? '/', 'http://localhost').pathname === browser.path ? checkUpgrade(request, o.guard) : null;
    if (refusal) return answerRawSocket(socket, refusal.status, refusal.message);
    if (browser.handleUpgrade(request, socket, head) || carriers.handleUpgrade(request, socket, head)) return;
    socket.end('HTTP/1.1 404 Not Found\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
  });
  http.on('clientError', answerClientError);
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(o.port, o.host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const address = http.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}/`,
    browser,
    telephony,
    carriers,
    http,
    close: async () => {
      browser.close();
      carriers.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
