import { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { registerServe } from './commands/serve.js';
import { registerKeys, registerCredit } from './commands/keys.js';
import { registerAgent } from './commands/agent.js';
import { registerTalk } from './commands/talk.js';
import { registerCall } from './commands/call.js';
import { registerTts, registerAsr } from './commands/oneshot.js';
import { startTelemetry } from './telemetry.js';
import { registerLiveKit } from './commands/livekit.js';
import { registerTest } from './commands/test.js';
import { registerCalls } from './commands/calls.js';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url.replace('/dist/src/', '/src/')), 'utf8')) as {
  version: string;
};

const program = new Command('shoal')
  .description('Shoal: realtime voice agents on a self-hosted, offline speech service')
  .version(pkg.version)
  .showHelpAfterError()
  .addHelpText(
    'after',
    `
Examples:
  shoal agent                         demo agent in the browser at http://127.0.0.1:3000
  shoal serve --dev-key dev           the speech service on http://127.0.0.1:8080
  shoal talk --in call.wav --json     play a recorded caller into the agent
  shoal test scenarios/               put simulated callers through an agent and give verdicts
  shoal livekit                       a worker on LiveKit's agent dispatch ($LIVEKIT_URL, _API_KEY, _API_SECRET)
  shoal call +14155550100 --from +14155550199 --public-url https://abc.ngrok.app
                                      call a phone through Twilio and let the agent talk
  shoal tts "Hello there" -o hi.wav   one-shot synthesis`,
  );

registerServe(program);
registerKeys(program);
registerCredit(program);
registerAgent(program);
registerTalk(program);
registerTest(program);
registerCalls(program);
registerLiveKit(program);
registerCall(program);
registerTts(program);
registerAsr(program);

const telemetry = await startTelemetry((message) => process.stderr.write(`shoal: ${message}\n`));
try {
  await program.parseAsync(process.argv);
} catch (error) {
  const message = error instanceof Error ? error.message : String(error);
  for (const line of message.split('\n')) process.stderr.write(`shoal: ${line}\n`);
  // A dialogue file that does not load, or `--llm-*`/`--mcp*` options that cannot be used, is a usage error, as
  // for `shoal test`'s unusable files.
  process.exitCode = error instanceof Error && ['ScriptValidationError', 'ScriptSyntaxError', 'LlmOptionError'].includes(error.name) ? 2 : 1;
} finally {
  await telemetry?.shutdown();
}
