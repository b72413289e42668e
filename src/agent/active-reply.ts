import type { Span } from '@opentelemetry/api';
import type { TurnReport } from './events.js';
import type { AgentReply } from './reply.js';
import type { ReplyTools } from './reply-tools.js';
import type { UtteranceState } from './utterance-state.js';

export type ReplyKind = 'greeting' | 'turn' | 'reprompt' | 'fallback' | 'goodbye';

/** A reply the session has started, with what it needs to finish the turn's report. */
export interface ActiveReply {
  reply: AgentReply;
  kind: ReplyKind;
  report: TurnReport;
  turnSpan: Span;
  utterance?: UtteranceState;
  endAfter: boolean;
  tools: ReplyTools;
}
