import { describe, expect, it } from 'vitest';
import { runPhoneSoak } from '../support/phone-soak.js';

/** 500 short phone calls through one `shoal agent` process (about 1.5 min here): in `npm run test:reliability`. */
describe.skipIf(process.env.SHOAL_RELIABILITY !== '1')('phone soak (SHOAL_RELIABILITY=1)', () => {
  it('500 sequential calls, four at a time, leave RSS within 50 MB of the figure after 50 and leak no descriptor', async () => {
    const result = await runPhoneSoak({ calls: 500, concurrency: 4, baselineAfter: 50, callerMs: 400 });
    console.log(JSON.stringify({ soak: result }));
    expect(result.calls).toBe(500);
    expect(result.failed).toBe(0);
    expect(result.rssGrowthMb).toBeLessThan(50);
    expect(result.fdsEnd).toBeLessThanOrEqual(result.fdsBaseline);
  }, 600_000);
});
