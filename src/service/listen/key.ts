import type { IncomingHttpHeaders } from 'node:http';

/** The schemes Deepgram's clients send an API key with: `Token` for keys, `Bearer` for access tokens. */
const schemes = /^(?:Token|Bearer)\s+(.+)$/i;

/** Subprotocol names a browser client puts before its key (`Sec-WebSocket-Protocol: token, <key>`). */
const keyProtocols = new Set(['token', 'bearer']);

/** The API key of a `/v1/listen` request: the Authorization header, else the `token, <key>` subprotocols. */
export function listenKey(headers: IncomingHttpHeaders): string | undefined {
  const authorization = headers.authorization?.trim();
  if (authorization) return schemes.exec(authorization)?.[1]?.trim();
  const protocols = (headers['sec-websocket-protocol'] ?? '').split(',').map((name) => name.trim());
  const at = protocols.findIndex((name) => keyProtocols.has(name.toLowerCase()));
  return at >= 0 ? protocols[at + 1] || undefined : undefined;
}

/** The subprotocol the server answers: the scheme name the client offered (never the key itself). */
export function listenSubprotocol(offered: Set<string>): string | undefined {
  for (const name of offered) if (keyProtocols.has(name.toLowerCase())) return name;
  return undefined;
}
