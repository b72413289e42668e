import { isIP } from 'node:net';

/** What `shoal agent` would expose, and the protection configured for it. */
export interface Exposure {
  host: string;
  accessToken?: string;
  streamKey?: string;
  publicUrl?: string;
  twilioAuthToken?: string;
  /** `--public-calls`: calls from anyone, on purpose. */
  publicCalls?: boolean;
}

/** True for addresses only this machine reaches: 127.0.0.0/8, ::1, localhost. */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '');
  if (bare === 'localhost' || bare === '::1') return true;
  return isIP(bare) === 4 && bare.startsWith('127.');
}

/** The host of a URL, or the text itself when it does not parse (then it counts as public). */
function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return url;
  }
}

/**
 * Why the agent must not start as configured: on an address other machines reach, browser calls need an
 * access token and carriers' streams a stream key (or `--public-calls`); and a Twilio webhook that other machines
 * reach (`--host`, or a `--public-url` such as a tunnel's forwarding to loopback) needs the auth token its
 * signatures are checked with, since it hands out stream tokens. Empty when it may start.
 */
export function exposureProblems(exposure: Exposure): string[] {
  const problems: string[] = [];
  const hostPublic = !isLoopback(exposure.host);
  if (hostPublic && !exposure.publicCalls) {
    const where = `--host ${exposure.host} is reachable from other machines`;
    if (!exposure.accessToken) problems.push(`${where}: browser calls need a token: set SHOAL_AGENT_TOKEN (or --access-token-file FILE), or pass --public-calls to let anyone call`);
    if (!exposure.streamKey) problems.push(`${where}: carriers' media streams need a key: set SHOAL_STREAM_KEY (or --stream-key-file FILE), or pass --public-calls`);
  }
  const webhookPublic = exposure.publicUrl !== undefined && (hostPublic || !isLoopback(hostOf(exposure.publicUrl)));
  if (webhookPublic && !exposure.twilioAuthToken) {
    problems.push(`--public-url answers Twilio's webhook, which hands out stream tokens: set TWILIO_AUTH_TOKEN (or --twilio-auth-token-file FILE) so that only Twilio's signed requests get one`);
  }
  return problems;
}

/** The agent would start unprotected; the message lists what to set. */
export class ExposureError extends Error {
  override readonly name = 'ExposureError';
  constructor(readonly problems: readonly string[]) {
    super(`refusing to start:\n  ${problems.join('\n  ')}\n(see "before you expose it" in docs/operations.md)`);
  }
}
