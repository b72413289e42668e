/**
 * `shoal serve` (a child process): 20 concurrent TTS requests per format, time to the whole body. `ttsStreams`
 * is passed as `--tts-streams` (omitted: the service's default cap, which refuses the excess with 503).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startShoal } from './child.js';
import { p, round } from './measure.js';

const text = 'Thank you for calling. Your table for two is booked for seven thirty tonight.';

export async function serveConcurrentTts(concurrent: number, formats: string[], ttsStreams?: number) {
  const data = mkdtempSync(join(tmpdir(), 'shoal-capacity-'));
  const key = 'shoal-bench-capacity-key';
  const cap = ttsStreams ? ['--tts-streams', String(ttsStreams)] : [];
  const serve = await startShoal(['serve', '--port', '0', '--data', data, '--dev-key', key, '--log-level', 'warn', ...cap], /listening on (\S+)/);
  const rows = [];
  try {
    const once = async (format: string) => {
      const started = performance.now();
      const response = await fetch(`${serve.url}/v1/tts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ text, format }),
      });
      const bytes = (await response.arrayBuffer()).byteLength;
      return { status: response.status, bytes, ms: performance.now() - started };
    };
    for (const format of formats) await once(format); // warm-up per format
    for (const format of formats) {
      const results = await Promise.all(Array.from({ length: concurrent }, () => once(format)));
      const ok = results.filter((r) => r.status === 200);
      rows.push({
        format,
        concurrent,
        ok: ok.length,
        refused_503: results.filter((r) => r.status === 503).length,
        p50_ms: p(ok.map((r) => r.ms), 50),
        p95_ms: p(ok.map((r) => r.ms), 95),
        bytes: round(ok[0]?.bytes, 0),
      });
    }
    return { tts_streams: ttsStreams ?? 'default', rss_mb: serve.rssMb(), rows };
  } finally {
    const code = await serve.stop();
    rmSync(data, { recursive: true, force: true });
    if (code !== 0) process.stderr.write(`shoal serve exited with ${code} after SIGTERM\n`);
  }
}
