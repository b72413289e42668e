import { randomBytes } from 'node:crypto';
import { createSpeechService, type SpeechService, type SpeechServiceOptions } from './server.js';

export interface EmbeddedServiceOptions extends Partial<Omit<SpeechServiceOptions, 'accounts'>> {
  host: string;
  /** 0 picks a free port. */
  port: number;
}

export const defaults: EmbeddedServiceOptions = { host: '127.0.0.1', port: 0, logLevel: 'warn' };

export interface EmbeddedService {
  /** Base URL, e.g. `http://127.0.0.1:41234`. */
  url: string;
  /** The one key the embedded service accepts. */
  apiKey: string;
  service: SpeechService;
  close(): Promise<void>;
}

/** Runs the speech service in this process on a loopback port with a fresh single API key (for the agent and tests). */
export async function startEmbeddedService(options: Partial<EmbeddedServiceOptions> = {}): Promise<EmbeddedService> {
  const settings = { ...defaults, ...options };
  const apiKey = settings.apiKey ?? `shoal-embedded-${randomBytes(18).toString('base64url')}`;
  const service = await createSpeechService({ ...settings, apiKey });
  try {
    const url = await service.listen({ host: settings.host, port: settings.port });
    return { url, apiKey, service, close: () => service.close() };
  } catch (error) {
    await service.close();
    throw error;
  }
}
