import { createParser } from 'eventsource-parser';

/**
 * The `data` of each server-sent event in a `text/event-stream` body, parsed by eventsource-parser
 * (multi-line data joined with "\n"). A last event the server did not end with a blank line is still yielded.
 */
export async function* serverSentEventData(body: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  const ready: string[] = [];
  const parser = createParser({ onEvent: (event) => ready.push(event.data) });
  for await (const chunk of body) {
    parser.feed(decoder.decode(chunk, { stream: true }));
    yield* ready.splice(0);
  }
  parser.feed(`${decoder.decode()}\n\n`);
  yield* ready.splice(0);
}
