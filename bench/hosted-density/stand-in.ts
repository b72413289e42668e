/**
 * The stand-in hosted speech service as its own process (test/support/hosted-service-double.ts): `/v1/asr` answers after
 * 150 ms, `/v1/tts/live` answers each flush after 120 ms with PCM paced in real time; with `--listen`, `/v1/listen`
 * answers each `Finalize` after 150 ms. Prints its URL.
 * Run: npx tsx bench/hosted-density/stand-in.ts [--port N] [--listen]
 */
import { startHostedDouble } from '../../test/support/hosted-service-double.js';

const at = process.argv.indexOf('--port');
const service = await startHostedDouble({ listen: process.argv.includes('--listen') }, at >= 0 ? Number(process.argv[at + 1]) : 0);
process.stdout.write(`stand-in speech service listening on ${service.url}\n`);
const stop = () => void service.close().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
