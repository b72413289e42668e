import { EMPTY, map, merge, Observable, type OperatorFunction } from 'rxjs';
import type { AgentEvent } from '../../agent/index.js';
import type { ServerMessage } from './protocol.js';
import type { AgentCaption } from './spoken-captions.js';

/**
 * What the page is told about a call: the agent's events as browser-protocol messages, plus the agent's words
 * as played (`captions$`, see SpokenCaptions) until the turn's final text. Captions are keyed by turn: the
 * caller's words belong to the turn after the last one the agent spoke (the greeting is turn 0).
 */
export function toBrowserMessages(captions$: Observable<AgentCaption> = EMPTY): OperatorFunction<AgentEvent, ServerMessage> {
  return (events$) =>
    new Observable<ServerMessage>((subscriber) => {
      let lastTurn = 0;
      const finished = new Set<number>();
      const input$ = merge(events$, captions$.pipe(map((caption) => ({ ...caption, type: 'caption' as const }))));
      return input$.subscribe({
        next: (event) => {
          switch (event.type) {
            case 'caption':
              if (!finished.has(event.turn)) subscriber.next({ type: 'agent_text', turn: event.turn, text: event.text, final: false });
              return;
            case 'transcript':
              if (event.text.trim()) subscriber.next({ type: 'transcript', turn: lastTurn + 1, text: event.text, final: event.final });
              return;
            case 'agent-started-speaking':
              lastTurn = Math.max(lastTurn, event.turn);
              return;
            case 'interrupted':
              finished.add(event.turn);
              subscriber.next({ type: 'agent_text', turn: event.turn, text: event.playedText, final: true, interrupted: true });
              return;
            case 'turn-metrics': {
              const { report } = event;
              lastTurn = Math.max(lastTurn, report.turn);
              finished.add(report.turn);
              if (report.userText) subscriber.next({ type: 'transcript', turn: report.turn, text: report.userText, final: true });
              subscriber.next({ type: 'agent_text', turn: report.turn, text: report.agentText, final: true, interrupted: report.interrupted });
              const m = report.metrics;
              if (report.userText && m.endOfSpeechToFinalMs !== undefined) {
                subscriber.next({
                  type: 'metrics',
                  turn: report.turn,
                  endpointingMs: m.endpointingMs,
                  endOfSpeechToTranscriptMs: m.endOfSpeechToFinalMs,
                  dialogueFirstTokenMs: m.dialogueFirstTokenMs,
                  ttsFirstAudioMs: m.ttsFirstAudioMs,
                  voiceToVoiceMs: m.voiceToVoiceMs,
                });
              }
              return;
            }
            case 'error':
              subscriber.next({ type: 'error', code: 'agent_error', message: `${event.stage}: ${event.message}` });
              return;
            default:
              return;
          }
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => subscriber.complete(),
      });
    });
}
