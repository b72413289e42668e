/** Pipecat Evals scripted files: the keys a recording turn, a reply's exclusions and a list of calls are read. */
import { describe, expect, it } from 'vitest';
import { parseScenarios } from '../../src/testing/index.js';

describe('Pipecat Evals scripted files', () => {
  it('play a turn\'s audio: recording rather than saying its user: text, as Pipecat does', () => {
    const [scenario] = parseScenarios(
      `name: recorded
turns:
  - user: "yes"
    audio: ../fixtures/human/dev_01.wav
    expect:
      - event: response
        text_contains: "how many"
        text_excludes: "booked"
`,
      '/evals/recorded.yaml',
    );
    expect(scenario!.steps).toEqual([{ play: '../fixtures/human/dev_01.wav', expect: { says: 'how many', not_says: 'booked' } }]);
  });

  it('read a function_call expectation written as a calls: list', () => {
    const [scenario] = parseScenarios(
      `name: books
turns:
  - user: "yes please"
    expect:
      - event: function_call
        calls:
          - name: book_table
            args: { party_size: 7 }
`,
      '/evals/books.yaml',
    );
    expect(scenario!.steps[0]!.expect).toEqual({ tool: { name: 'book_table', args: { party_size: 7 } } });
  });
});
