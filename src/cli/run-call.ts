import { isPhoneNumber } from '../transports/telephony/index.js';
import type { CallCommandOptions } from './options.js';
import { PhoneSetupError } from './phone-lines.js';
import { startAgentApp } from './run-agent.js';
import { createLogger } from '../logging/index.js';

/** `shoal call NUMBER`: starts the agent with its phone webhooks, places the call, and stops when the call has ended. */
export async function runCallCommand(to: string, options: CallCommandOptions): Promise<void> {
  const from = options.from ?? process.env['TWILIO_FROM_NUMBER'];
  if (!isPhoneNumber(to)) throw new PhoneSetupError(`call an E.164 number (+14155550100), not "${to}"`);
  if (!from) throw new PhoneSetupError('give the Twilio number to call from: --from +1… or TWILIO_FROM_NUMBER');
  const log = (line: string) => process.stdout.write(`${line}\n`);
  log('starting the agent…');
  const app = await startAgentApp(options, { logger: createLogger({ level: options.logLevel ?? 'info' }) });
  try {
    const callId = await app.phone.dial(to, from, { machineDetection: options.machineDetection });
    const status = await Promise.race([
      app.phone.finished(callId),
      new Promise<string>((resolve) => {
        process.once('SIGINT', () => resolve('stopped here (the call may go on until Twilio ends it)'));
        process.once('SIGTERM', () => resolve('stopped here'));
      }),
    ]);
    log(`call ${callId}: ${status}`);
  } finally {
    await app.close();
  }
}
