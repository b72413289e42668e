import { describe, expect, it } from 'vitest';

describe('process metrics', () => {
  it('are not collected when a library user imports Shoal, only once a server with /metrics starts', async () => {
    const shoal = await import('../src/index.js');
    const { metricsRegistry, startProcessMetrics } = await import('../src/metrics/index.js');
    expect(shoal.VoiceAgent).toBeDefined();
    expect(metricsRegistry.getSingleMetric('process_cpu_user_seconds_total')).toBeUndefined();
    expect(metricsRegistry.getSingleMetric('nodejs_eventloop_lag_seconds')).toBeUndefined();
    startProcessMetrics();
    startProcessMetrics();
    expect(metricsRegistry.getSingleMetric('process_cpu_user_seconds_total')).toBeDefined();
    expect(await metricsRegistry.metrics()).toMatch(/^nodejs_eventloop_lag_seconds /m);
  });
});
