#!/usr/bin/env node
// Puts each deliberate bug of issue 18's table into a fresh copy of the code, alone, and runs the tests that
// cover the file: every bug must make them fail ("caught").
//   node scripts/deliberate-bugs.mjs
// Prints one JSON line per bug ({bug, file, caught}); exits 1 when a bug is not caught or no longer applies.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inSandbox, runTests } from './mutation-sandbox.mjs';

const bugs = [
  {
    bug: 'low-latency mode given balanced\'s values (500 ms endpoint, no interims, no preemptive reply)',
    file: 'src/agent/modes.ts',
    from: "endpointSilenceMs: 200,\n    interimTranscripts: true,\n    interimEveryMs: 96,\n    preemptiveDialogue: true,\n    stableInterimMs: 96,",
    to: "endpointSilenceMs: 500,\n    interimTranscripts: false,\n    interimEveryMs: 0,\n    preemptiveDialogue: false,\n    stableInterimMs: 0,",
    tests: ['test/agent/agent-modes.test.ts'],
  },
  {
    bug: 'traceparent dropped on the agent → service /v1/asr hop',
    file: 'src/agent/stt/segment-service-stt.ts',
    from: 'const traceparent = traceparentOf();',
    to: 'const traceparent: string | undefined = undefined;',
    tests: ['test/agent/agent-service-stt-trace.test.ts'],
  },
  {
    bug: 'voice design priced at 0',
    file: 'src/service/store/account-gate.ts',
    from: 'return pricing.voiceDesignMicrosPerRequest;',
    to: 'return 0;',
    tests: ['test/service/service-prices.test.ts'],
  },
  {
    bug: 'barge-in pauses the reply but never cancels it',
    file: 'src/agent/agent-speaking.ts',
    from: '    active.reply.cancel();\n    core.transport.clear();',
    to: '    core.transport.clear();',
    tests: ['test/agent/agent-barge-in.test.ts', 'test/agent/agent-barge-in-wall-clock.test.ts'],
  },
  {
    bug: 'final transcript never interrupts',
    file: 'src/agent/utterance-state.ts',
    from: 'if (this.wantsInterruption(text)) this.interruptAgent();\n      else if',
    to: 'if (false) this.interruptAgent();\n      else if',
    tests: ['test/agent/agent-utterance-state.test.ts', 'test/agent/agent-barge-in.test.ts'],
  },
  {
    bug: '<|speaker:N|> tags ignored, first voice always used',
    file: 'src/service/tts/synthesis.ts',
    from: 'settings.voices[chunk.speaker] ?? settings.voices[0]!',
    to: 'settings.voices[0]!',
    tests: ['test/service/service-tts-synthesis.test.ts', 'test/service/service-tts-speakers.test.ts'],
  },
];

let failed = false;
inSandbox((sandbox) => {
  // A bug only counts as caught when the same tests pass on the unbroken code.
  const allTests = [...new Set(bugs.flatMap((b) => b.tests))];
  if (runTests(sandbox, allTests) !== 'Survived') {
    console.log(JSON.stringify({ error: 'the tests fail on the unbroken code', tests: allTests }));
    process.exit(2);
  }
  for (const { bug, file, from, to, tests } of bugs) {
    const original = readFileSync(join(sandbox, file), 'utf8');
    if (!original.includes(from)) {
      console.log(JSON.stringify({ bug, file, caught: null, error: 'the code to break is no longer there; update this script' }));
      failed = true;
      continue;
    }
    writeFileSync(join(sandbox, file), original.replace(from, to));
    const caught = runTests(sandbox, tests) !== 'Survived';
    writeFileSync(join(sandbox, file), original);
    if (!caught) failed = true;
    console.log(JSON.stringify({ bug, file, caught, tests }));
  }
});
process.exit(failed ? 1 : 0);
