/** Parses Prometheus text format into `name{labels}` → value; throws on a line that is not a sample or comment. */
export function parsePrometheus(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*(?:\{[^}]*\})?) (\S+)$/.exec(line);
    if (!match) throw new Error(`not a Prometheus sample line: ${line}`);
    samples.set(match[1]!, Number(match[2]));
  }
  return samples;
}

/** One sample of a server's `/metrics`, e.g. `shoal_service_refusals_total{status="402"}`; 0 when not yet counted. */
export async function metricOf(baseUrl: string, sample: string): Promise<number> {
  return parsePrometheus(await (await fetch(`${baseUrl}/metrics`)).text()).get(sample) ?? 0;
}
