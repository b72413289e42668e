import type { IncomingMessage } from 'node:http';
import { createHash, timingSafeEqual } from 'node:crypto';

/** Who may open the agent's browser WebSocket. */
export interface UpgradeGuardOptions {
  /** Origins besides the page's own that may connect (`--allow-origin`), e.g. `https://app.example.com`. */
  allowedOrigins: string[];
  /** When set, a socket must carry it as `?access_token=` or `Authorization: Bearer` (`--access-token`). */
  accessToken?: string;
}

export const upgradeGuardDefaults: UpgradeGuardOptions = { allowedOrigins: [] };

export interface UpgradeRefusal {
  status: 401 | 403;
  message: string;
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * Checks a browser WebSocket upgrade: a browser always sends `Origin`, so a page of another site is refused
 * unless configured (cross-site WebSocket hijacking). Without an origin list, clients without `Origin` (not
 * browsers) pass this check; with one, `Origin` is required. The access token, when configured, is required of everyone.
 */
export function checkUpgrade(request: IncomingMessage, options: UpgradeGuardOptions): UpgradeRefusal | null {
  const origin = request.headers.origin;
  if (origin === undefined && options.allowedOrigins.length > 0) {
    return { status: 403, message: 'this agent takes calls from the pages of its allowed origins only, and the request has no Origin header' };
  }
  if (origin !== undefined && !originAllowed(origin, request.headers.host, options.allowedOrigins)) {
    return { status: 403, message: `origin ${origin} may not open calls here; start the agent with --allow-origin ${origin}` };
  }
  if (options.accessToken) {
    const query = new URL(request.url ?? '/', 'http://localhost').searchParams.get('access_token');
    const header = /^Bearer\s+(.+)$/i.exec(request.headers.authorization ?? '')?.[1]?.trim();
    const given = query ?? header;
    if (!given || !timingSafeEqual(digest(given), digest(options.accessToken))) {
      return { status: 401, message: 'this agent needs an access token: open the page with ?access_token=<token>' };
    }
  }
  return null;
}

function originAllowed(origin: string, host: string | undefined, allowed: string[]): boolean {
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return false;
  }
  if (host !== undefined && parsed.host === host) return true;
  return allowed.some((entry) => entry.replace(/\/+$/, '') === parsed.origin);
}
