import { serverSentEventData } from '../../src/client/index.js';

/** Yields the `data` of each server-sent event in `body` (multi-line data joined with "\n"). */
export function readServerSentEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  return serverSentEventData(body as unknown as AsyncIterable<Uint8Array>);
}
