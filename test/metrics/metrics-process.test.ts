import { describe, expect, it } from 'vitest';

const gauge = (text: string, name: string) => Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1]);

describe('process metrics', () => {
  it('are not collected when a library user imports Shoal, only once a server with /metrics starts', async () => {
    const shoal = await import('../../src/index.js');
    const { metricsRegistry, startProcessMetrics } = await import('../../src/metrics/index.js');
    expect(shoal.VoiceAgent).toBeDefined();
    expect(metricsRegistry.getSingleMetric('process_cpu_user_seconds_total')).toBeUndefined();
    expect(metricsRegistry.getSingleMetric('nodejs_eventloop_lag_seconds')).toBeUndefined();
    startProcessMetrics();
    startProcessMetrics();
    expect(metricsRegistry.getSingleMetric('process_cpu_user_seconds_total')).toBeDefined();
    expect(await metricsRegistry.metrics()).toMatch(/^nodejs_eventloop_lag_seconds /m);
  });

  it('sample the event loop every 100 ms, not every 10 ms: an idle loop costs little, and the lag is still measured', async () => {
    const { eventLoopPrecisionMs, metricsRegistry, startProcessMetrics } = await import('../../src/metrics/index.js');
    expect(eventLoopPrecisionMs).toBe(100);
    startProcessMetrics();
    await metricsRegistry.metrics(); // resets the histogram
    await new Promise((resolve) => setTimeout(resolve, 350));
    const text = await metricsRegistry.metrics();
    // Each sample is the time from one tick to the next: at 10 ms ticks the least would be about 0.010 s.
    expect(gauge(text, 'nodejs_eventloop_lag_min_seconds')).toBeGreaterThanOrEqual(0.099);
    expect(gauge(text, 'nodejs_eventloop_lag_p99_seconds')).toBeLessThan(1);
  });
});
