/**
 * Phone callers of `startAgentApp` on a virtual clock: the carrier's side of Twilio media streams over the app's
 * real telephony socket, 20 ms mu-law frames, each followed by the clock moving 20 ms and every call settling (no
 * engine work in flight, the agent's audio received). A call of N seconds runs as fast as the CPU allows, and what
 * the caller hears is placed on the call's clock, not the wall's.
 */
import { WebSocket } from 'ws';
import type { CallSession, Transport } from '../../src/agent/index.js';
import { VirtualClock } from '../../src/pipeline/index.js';
import { mediaStream } from '../../src/transports/telephony/media-stream-messages.js';
import type { TelephonyTransport } from '../../src/transports/index.js';

const frameMs = 20;
const frameBytes = (mediaStream.sampleRate * frameMs) / 1000;
/** Mu-law silence. */
const quiet = new Uint8Array(frameBytes).fill(0xff);

/**
 * The phone network of one app: its clock (give it to `startAgentApp` with `onCall`), its callers, and the one
 * loop that moves the clock for all of them, so calls placed at once share their time.
 */
export class VirtualPhone {
  readonly clock = new VirtualClock();
  private readonly sessions = new Map<string, { session: CallSession; transport: TelephonyTransport }>();
  private readonly arrivals = new Map<string, () => void>();
  private readonly callers = new Set<VirtualPhoneCaller>();
  private waiters: Array<{ done: () => boolean; untilMs: number; resolve: () => void }> = [];
  private driving = false;

  /** The app's `onCall` hook (or call it from yours): the phone settles each call it placed before moving the clock. */
  readonly onCall = ({ transport, session }: { transport: Transport; session: CallSession }): void => {
    const streamSid = (transport as Partial<TelephonyTransport>).streamSid;
    if (streamSid === undefined) return;
    this.sessions.set(streamSid, { session, transport: transport as TelephonyTransport });
    this.arrivals.get(streamSid)?.();
  };

  /** Places a call on the app's telephony socket (`url`: the app's page URL) and waits for the agent to take it. */
  async call(url: string, customParameters: Record<string, string> = {}): Promise<VirtualPhoneCaller> {
    const streamSid = `MZ${Math.random().toString(16).slice(2, 18).padEnd(16, '0')}`;
    const taken = new Promise<void>((resolve) => this.arrivals.set(streamSid, resolve));
    const ws = new WebSocket(`${url.replace(/^http/, 'ws')}telephony`);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const caller = new VirtualPhoneCaller(this, ws, streamSid);
    caller.send({ event: 'connected', protocol: 'Call', version: '1.0.0' });
    caller.send({
      event: 'start',
      streamSid,
      start: { streamSid, callSid: `CA${streamSid.slice(2)}`, customParameters, mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: mediaStream.sampleRate, channels: 1 } },
    });
    await Promise.race([taken, caller.closed]);
    this.arrivals.delete(streamSid);
    const call = this.sessions.get(streamSid);
    if (!call) throw new Error(`the agent did not take the call: ${JSON.stringify(await caller.closed)}`);
    caller.session = call.session;
    caller.transport = call.transport;
    this.callers.add(caller);
    await this.settle();
    return caller;
  }

  /** Moves the clock, 20 ms at a time, until `done()` or `maxMs` have passed on it. */
  async run(done: () => boolean, maxMs: number): Promise<void> {
    if (done()) return;
    const untilMs = this.clock.now() + maxMs;
    const finished = new Promise<void>((resolve) => this.waiters.push({ done, untilMs, resolve }));
    if (!this.driving) void this.drive();
    await finished;
  }

  forget(caller: VirtualPhoneCaller): void {
    this.callers.delete(caller);
    if (caller.transport) this.sessions.delete(caller.transport.streamSid);
  }

  private async drive(): Promise<void> {
    this.driving = true;
    try {
      while (this.waiters.length > 0) {
        await this.tick();
        const now = this.clock.now();
        const due = this.waiters.filter((waiter) => waiter.done() || now >= waiter.untilMs);
        this.waiters = this.waiters.filter((waiter) => !due.includes(waiter));
        for (const waiter of due) waiter.resolve();
      }
    } finally {
      this.driving = false;
    }
  }

  /** 20 ms of every call: the clock moves, the carrier echoes the marks played by then, each caller's next frame goes out, the calls settle. */
  private async tick(): Promise<void> {
    const callers = [...this.callers].filter((caller) => caller.open);
    this.clock.advanceTo(this.clock.now() + frameMs);
    for (const caller of callers) caller.sendFrame();
    await Promise.all(callers.map((caller) => caller.barrier()));
    await this.settle();
  }

  /** No engine work in flight in any call, the agent's audio sent, and every caller has received what was sent. */
  private async settle(): Promise<void> {
    const callers = [...this.callers].filter((caller) => caller.open);
    await Promise.all(callers.map(async (caller) => (await caller.session!.settled(), await caller.transport!.playoutSent())));
    await Promise.all(callers.map((caller) => caller.barrier()));
  }
}

/** What the caller heard from the agent, placed on the call's clock. */
export interface HeardOnClock {
  /** Clock time (ms) at which each media message arrived. */
  arrivals: number[];
  /** Mu-law bytes received. */
  bytes: number;
  /** The media payloads received, in order. */
  payloads: Buffer[];
}

/**
 * One carrier-side call: plays audio as 20 ms frames (quiet when it has none), echoes each `mark` once the audio
 * before it has played on the call's clock (at once for the marks of audio a `clear` dropped), and hangs up.
 */
export class VirtualPhoneCaller {
  readonly heard: HeardOnClock = { arrivals: [], bytes: 0, payloads: [] };
  readonly marks: string[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  session: CallSession | undefined;
  transport: TelephonyTransport | undefined;
  private pending: Uint8Array | undefined;
  private pendingOffset = 0;
  /** Clock time at which the audio received so far ends playing. */
  private heardEndMs = 0;
  private queuedMarks: Array<{ name: string; atMs: number }> = [];
  private pongs: Array<() => void> = [];

  constructor(
    private readonly phone: VirtualPhone,
    private readonly ws: WebSocket,
    readonly streamSid: string,
  ) {
    this.closed = new Promise((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: String(reason) })));
    ws.on('pong', () => this.pongs.shift()?.());
    ws.once('close', () => {
      for (const wake of this.pongs.splice(0)) wake();
    });
    ws.on('message', (data) => {
      const message = JSON.parse(String(data)) as { event: string; media?: { payload: string }; mark?: { name: string } };
      const now = phone.clock.now();
      if (message.event === 'media') {
        const payload = Buffer.from(message.media!.payload, 'base64');
        this.heard.arrivals.push(now);
        this.heard.bytes += payload.length;
        this.heard.payloads.push(payload);
        this.heardEndMs = Math.max(now, this.heardEndMs) + (payload.length * 1000) / mediaStream.sampleRate;
      } else if (message.event === 'mark') {
        this.marks.push(message.mark!.name);
        this.queuedMarks.push({ name: message.mark!.name, atMs: Math.max(now, this.heardEndMs) });
      } else if (message.event === 'clear') {
        this.heardEndMs = now;
        for (const mark of this.queuedMarks.splice(0)) this.echo(mark.name);
      }
    });
  }

  get open(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  /** The call's clock, ms. */
  get now(): number {
    return this.phone.clock.now();
  }

  /** Plays `mulaw` as 20 ms frames, the clock moving 20 ms a frame; resolves once it is sent (or the call ended). */
  async play(mulaw: Uint8Array): Promise<void> {
    this.pending = mulaw;
    this.pendingOffset = 0;
    await this.phone.run(() => this.pending === undefined || !this.open, Infinity);
  }

  /** Stays on the line (quiet frames) until `done()`, or `maxMs` on the call's clock; true when `done()`. */
  async waitFor(done: () => boolean, maxMs: number): Promise<boolean> {
    await this.phone.run(() => done() || !this.open, maxMs);
    return done();
  }

  /** Stays on the line for `ms` of the call's clock. */
  async listen(ms: number): Promise<void> {
    await this.phone.run(() => !this.open, ms);
  }

  /** Presses a key (Twilio's `dtmf` event). */
  pressKey(digit: string): void {
    this.send({ event: 'dtmf', streamSid: this.streamSid, sequenceNumber: '1', dtmf: { track: 'inbound_track', digit } });
  }

  /** Hangs up: `stop`, then waits for the socket to close. */
  async hangUp(): Promise<void> {
    this.phone.forget(this);
    // The call's objects are the app's to release (tests check that it does).
    this.session = undefined;
    this.transport = undefined;
    this.send({ event: 'stop', streamSid: this.streamSid });
    if (this.open) this.ws.close(1000, 'caller hung up');
    await this.closed;
  }

  /** The marks due by now are echoed, then the next 20 ms frame of what is being played, or quiet. */
  sendFrame(): void {
    const now = this.now;
    const due = this.queuedMarks.filter((mark) => mark.atMs <= now);
    this.queuedMarks = this.queuedMarks.filter((mark) => mark.atMs > now);
    for (const mark of due) this.echo(mark.name);
    let frame: Uint8Array = quiet;
    if (this.pending) {
      frame = this.pending.subarray(this.pendingOffset, this.pendingOffset + frameBytes);
      this.pendingOffset += frameBytes;
      if (this.pendingOffset >= this.pending.length) this.pending = undefined;
    }
    this.send({ event: 'media', streamSid: this.streamSid, media: { track: 'inbound', payload: Buffer.from(frame).toString('base64') } });
  }

  /**
   * Resolves once the agent's side has read every message sent before and this side has received every message
   * the agent sent before reading them: a WebSocket ping is answered after the messages ahead of it.
   */
  barrier(): Promise<void> {
    if (!this.open) return Promise.resolve();
    return new Promise((resolve) => {
      this.pongs.push(resolve);
      this.ws.ping();
    });
  }

  send(message: object): void {
    if (this.open) this.ws.send(JSON.stringify(message));
  }

  private echo(name: string): void {
    this.send({ event: 'mark', streamSid: this.streamSid, mark: { name } });
  }
}
