import { AccessToken } from 'livekit-server-sdk';

export interface AgentTokenOptions {
  apiKey: string;
  apiSecret: string;
  room: string;
  identity: string;
  /** Token lifetime in seconds. */
  ttlSeconds?: number;
  attributes?: Record<string, string>;
  /** Participant kind the server gives the holder; `agent` (the default) is what front ends look for. */
  kind?: 'agent' | 'standard';
}

/** A join token that lets the agent publish audio and data and subscribe to the caller in one room. */
export async function createAgentToken(options: AgentTokenOptions): Promise<string> {
  const token = new AccessToken(options.apiKey, options.apiSecret, {
    identity: options.identity,
    ttl: options.ttlSeconds ?? 3600,
    attributes: options.attributes,
  });
  token.kind = options.kind ?? 'agent';
  token.addGrant({ room: options.room, roomJoin: true, canPublish: true, canSubscribe: true, canPublishData: true, canUpdateOwnMetadata: true });
  return token.toJwt();
}
