/**
 * A local stand-in for the model behind examples/scenarios/simulated-caller.yaml: it asks for the opening hours
 * until the agent's reply (as the caller heard it) mentions "eleven", then ends the conversation with its goal
 * reached. Run it beside `shoal test`: npx tsx test/support/caller-model-double.ts 8089
 */
import { pathToFileURL } from 'node:url';
import { callerModel, FakeOpenAiServer } from './fake-openai-server.js';

export async function startCallerModel(port = 0): Promise<FakeOpenAiServer> {
  const server = new FakeOpenAiServer();
  server.fallback = callerModel(['when are you open'], /eleven/i);
  return server.start(port);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const port = Number(process.argv.find((arg) => /^\d+$/.test(arg)) ?? 8089);
  const server = await startCallerModel(port);
  process.stdout.write(`a caller model at ${server.baseUrl}\n`);
}
