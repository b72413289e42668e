import { describe, expect, it } from 'vitest';
import { CallAdmission, callCpuMsPerSecond, capacityFor, cpuShareForCalls, defaultMaxCalls, type AdmissionDecision } from '../../src/agent/index.js';
import { callEngines } from '../../src/cli/speech-engines.js';

describe('call admission', () => {
  it('admits up to its capacity, then refuses at once without touching the calls in progress', () => {
    const admission = new CallAdmission({ maxCalls: 2 });
    const decisions: AdmissionDecision[] = [];
    admission.decisions$.subscribe((d) => decisions.push(d));
    const first = admission.admit();
    const second = admission.admit();
    expect(first).toBeDefined();
    expect(second).toBeDefined();
    expect(admission.load()).toBe(1);
    expect(admission.ready).toBe(false);
    expect(admission.admit()).toBeUndefined();
    expect(admission.active).toBe(2);
    first!.release();
    first!.release(); // idempotent: the second release frees nothing more
    expect(admission.active).toBe(1);
    expect(admission.load()).toBe(0.5);
    expect(admission.admit()).toBeDefined();
    expect(decisions).toEqual(['accepted', 'accepted', 'refused', 'accepted']);
  });

  it('rejects a capacity that is not a positive integer', () => {
    expect(() => new CallAdmission({ maxCalls: 0 })).toThrow(/maxCalls must be a positive integer/);
    expect(() => new CallAdmission({ maxCalls: 1.5 })).toThrow(RangeError);
  });

  it('drain stops admitting and resolves when the last call ends', async () => {
    const admission = new CallAdmission({ maxCalls: 4 });
    const call = admission.admit()!;
    let drained = false;
    const drain = admission.drain(5000).then(() => (drained = true));
    expect(admission.draining).toBe(true);
    expect(admission.load()).toBe(1);
    expect(admission.admit()).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(drained).toBe(false);
    call.release();
    await drain;
    expect(drained).toBe(true);
  });

  it('drain gives up after its timeout when calls do not end', async () => {
    const admission = new CallAdmission({ maxCalls: 1 });
    admission.admit();
    const started = performance.now();
    await admission.drain(60);
    expect(performance.now() - started).toBeGreaterThanOrEqual(55);
    expect(admission.active).toBe(1);
  });

  it('drain with no calls resolves at once', async () => {
    const admission = new CallAdmission({ maxCalls: 1 });
    // Before the timeout it was given, however loaded the machine: nothing to wait for.
    const timeout = new Promise<string>((resolve) => setTimeout(() => resolve('waited for the timeout'), 4000).unref());
    expect(await Promise.race([admission.drain(5000).then(() => 'drained'), timeout])).toBe('drained');
  });
});

describe('default capacity', () => {
  it('is the calls whose measured CPU fits in 70% of the cores, at least one', () => {
    expect(capacityFor(2, 275)).toBe(5);
    expect(capacityFor(8, 275)).toBe(20);
    expect(capacityFor(2, 100, 0.5)).toBe(10);
    expect(capacityFor(1, 5000)).toBe(1);
  });

  it('comes from what a call costs on the engines that run: hosted engines take 20 times the calls on 2 cores', () => {
    expect(callCpuMsPerSecond.hosted).toBeLessThanOrEqual(15);
    expect(defaultMaxCalls('embedded', 2)).toBe(5);
    // At most the 110 calls measured to hold on 2 cores, and within 20 % of them (bench/hosted-density.ts).
    expect(defaultMaxCalls('hosted', 2)).toBeGreaterThanOrEqual(88);
    expect(defaultMaxCalls('hosted', 2)).toBeLessThanOrEqual(110);
    // Hosted calls are the event loop's: a bigger machine runs more processes, not more calls in one.
    expect(defaultMaxCalls('hosted', 8)).toBe(defaultMaxCalls('hosted', 2));
    expect(defaultMaxCalls('hosted', 2)).toBe(capacityFor(1, callCpuMsPerSecond.hosted, cpuShareForCalls.hosted));
    expect(defaultMaxCalls('embedded', 8)).toBe(capacityFor(8, callCpuMsPerSecond.embedded));
    expect(new CallAdmission({ engines: 'hosted' }).capacity).toBe(defaultMaxCalls('hosted'));
    expect(new CallAdmission().capacity).toBe(defaultMaxCalls('embedded'));
    expect(new CallAdmission({ engines: 'hosted', maxCalls: 3 }).capacity).toBe(3);
  });

  it('counts engines as hosted only when recognition runs on a service elsewhere', () => {
    expect(callEngines({ serviceUrl: 'https://api.example' })).toBe('hosted');
    expect(callEngines({ serviceUrl: 'https://api.example', asr: 'local' })).toBe('embedded');
    expect(callEngines({ asr: 'service' })).toBe('embedded'); // the self-hosted service in this process
    expect(callEngines({})).toBe('embedded');
  });
});
