import type { ParticipantKindName, RoomParticipant } from './room-link.js';

/** Which participant is the caller: one identity, or the first participant of the given kinds to join. */
export interface CallerSelection {
  /** The caller's identity; default: the first participant of `kinds` to join. */
  identity?: string;
  /** Kinds that can be the caller; other agents, egress and ingress are never taken for one. */
  kinds?: readonly ParticipantKindName[];
}

export const defaults = {
  /** The kinds LiveKit's own agents answer by default: people in apps, phone callers, connectors. */
  kinds: ['standard', 'sip', 'connector'] as readonly ParticipantKindName[],
};

/** Whether `participant` can be the call's caller under `selection`. */
export function isCallerCandidate(participant: RoomParticipant, selection: CallerSelection = {}): boolean {
  if (selection.identity !== undefined) return participant.identity === selection.identity;
  return (selection.kinds ?? defaults.kinds).includes(participant.kind);
}

/** Parses `--caller-kind sip,standard`: names LiveKit uses, with a clear error for anything else. */
export function parseParticipantKinds(list: string): ParticipantKindName[] {
  const known: ParticipantKindName[] = ['standard', 'ingress', 'egress', 'sip', 'agent', 'connector', 'bridge'];
  const kinds = list.split(',').map((kind) => kind.trim().toLowerCase()).filter(Boolean);
  const unknown = kinds.filter((kind) => !known.includes(kind as ParticipantKindName));
  if (unknown.length > 0 || kinds.length === 0) {
    throw new RangeError(`unknown participant kind ${unknown.join(', ') || '(none given)'}; use one or more of ${known.join(', ')}`);
  }
  return kinds as ParticipantKindName[];
}
