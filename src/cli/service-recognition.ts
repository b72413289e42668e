import WebSocket from 'ws';
import { interimEveryMsOf, modeSettings, type AgentMode, type SpeechToText, type SttChoice } from '../agent/index.js';
import { deepgram } from '../../plugins/deepgram/index.js';
import { websocketUrl } from '../../plugins/provider-kit.js';

/** How the agent's `service` recognition reaches the speech service. */
export interface ServiceRecognition {
  /** The recognisers of a mode's stack: `service` replaced by a live `/v1/listen` client when the service has that socket. */
  sttFor(mode: AgentMode): SttChoice[];
  /** `/v1/listen`: one live socket per call; `/v1/asr`: one request per utterance (and per interim). */
  path: '/v1/listen' | '/v1/asr';
  /** Why the agent stays on `/v1/asr`, for the start-up output; absent when it streams or `service` is not chosen. */
  fallback?: string;
}

export interface ListenProbe {
  /** True when the service opened its live recognition socket for this key. */
  open: boolean;
  /** What the service answered otherwise (`HTTP 404`, `socket hang up`, …). */
  answer?: string;
}

/** The service decodes the utterance's end on its own CPU, after any interims queued before: a busy one takes seconds. */
const finalizeTimeoutMs = 10_000;
const probeQuery = { encoding: 'linear16', sample_rate: 16000, channels: 1 } as const;

/**
 * Opens `/v1/listen` once with the key and closes it at once (`CloseStream`, no audio, so nothing is billed): a
 * service without the socket (the hosted one, an older `shoal serve`) answers 404 or drops the upgrade.
 */
export function probeListen(service: { url: string; apiKey: string }, timeoutMs = 5000): Promise<ListenProbe> {
  return new Promise((resolve) => {
    const socket = new WebSocket(websocketUrl(service.url, '/v1/listen', probeQuery), { headers: { Authorization: `Token ${service.apiKey}` }, handshakeTimeout: timeoutMs });
    const done = (probe: ListenProbe) => {
      socket.removeAllListeners();
      socket.on('error', () => undefined);
      resolve(probe);
    };
    socket.once('unexpected-response', (_request, response) => {
      response.resume();
      socket.terminate();
      done({ open: false, answer: `HTTP ${response.statusCode ?? 0}` });
    });
    socket.once('error', (error: Error & { code?: string }) => done({ open: false, answer: error.code ?? error.message }));
    socket.once('open', () => {
      socket.send(JSON.stringify({ type: 'CloseStream' }));
      socket.close(1000);
      done({ open: true });
    });
  });
}

/**
 * The speech service's live recogniser: Deepgram's protocol at the service's `/v1/listen`, under the service's name,
 * with the call's expectations whole as `hints` (as `/v1/asr` takes them); interim results only in a mode that uses
 * them (as `/v1/asr` interims are), since each costs the service a decode.
 */
export function listenRecognizer(service: { url: string; apiKey: string }, mode: AgentMode): SpeechToText {
  const interimResults = interimEveryMsOf(modeSettings(mode)) > 0;
  const recognizer = deepgram({ baseUrl: service.url, apiKey: service.apiKey, model: 'general', interimResults, finalizeTimeoutMs, sendHints: true, maxKeyterms: 0 });
  Object.defineProperty(recognizer, 'provider', { value: 'service', enumerable: true });
  return recognizer;
}

/**
 * Decides how `--stt service` recognises: over the service's live `/v1/listen` socket when it has one (interims as
 * the caller speaks, one final per utterance, each second of audio billed once), else `/v1/asr` per utterance.
 */
export async function serviceRecognition(stt: readonly SttChoice[], service: { url: string; apiKey: string } | undefined, probe = probeListen): Promise<ServiceRecognition> {
  if (!service || !stt.includes('service')) return { sttFor: () => [...stt], path: '/v1/asr' };
  const answer = await probe(service);
  if (!answer.open) {
    return {
      sttFor: () => [...stt],
      path: '/v1/asr',
      fallback: `Recognition: the speech service at ${service.url} has no live recognition socket (/v1/listen: ${answer.answer ?? 'refused'}); each utterance is sent to /v1/asr`,
    };
  }
  const live = new Map<AgentMode, SpeechToText>();
  const liveFor = (mode: AgentMode) => live.get(mode) ?? live.set(mode, listenRecognizer(service, mode)).get(mode)!;
  return { sttFor: (mode) => stt.map((choice) => (choice === 'service' ? liveFor(mode) : choice)), path: '/v1/listen' };
}
