import { randomBytes } from 'node:crypto';

/** A parsed W3C `traceparent` (version 00). */
export interface TraceParent {
  traceId: string;
  parentId: string;
  flags: number;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** Parses a `traceparent` header; returns null when it is missing or invalid (all-zero ids, version ff, bad shape). */
export function parseTraceparent(header: string | undefined | null): TraceParent | null {
  if (!header) return null;
  const match = TRACEPARENT.exec(header.trim().toLowerCase());
  if (!match) return null;
  const [, version, traceId, parentId, flags] = match;
  if (version === 'ff') return null;
  if (/^0+$/.test(traceId!) || /^0+$/.test(parentId!)) return null;
  return { traceId: traceId!, parentId: parentId!, flags: parseInt(flags!, 16) };
}

export function formatTraceparent(trace: TraceParent): string {
  return `00-${trace.traceId}-${trace.parentId}-${trace.flags.toString(16).padStart(2, '0')}`;
}

export function newTraceId(): string {
  return randomBytes(16).toString('hex');
}

export function newSpanId(): string {
  return randomBytes(8).toString('hex');
}
