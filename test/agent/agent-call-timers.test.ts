import { describe, expect, it } from 'vitest';
import { CallTimers } from '../../src/agent/call-timers.js';
import { VirtualClock } from '../../src/pipeline/index.js';

function timers(options = { userSilenceTimeoutMs: 1000, maxReprompts: 2, maxCallMs: 60_000 }) {
  const clock = new VirtualClock();
  const log: string[] = [];
  const actions = {
    reprompt: () => log.push(`reprompt @${clock.now()}`),
    goodbye: (reason: string) => log.push(`goodbye @${clock.now()}: ${reason}`),
  };
  return { clock, log, timers: new CallTimers(clock, options, actions) };
}

describe('CallTimers', () => {
  it('reprompts after each silence timeout, then says goodbye once the reprompts are spent', () => {
    const { clock, log, timers: t } = timers();
    t.awaitCaller();
    clock.advanceTo(999);
    expect(log).toEqual([]);
    clock.advanceTo(1000);
    t.awaitCaller(); // the reprompt was spoken
    clock.advanceTo(2000);
    t.awaitCaller();
    clock.advanceTo(3000);
    expect(log).toEqual(['reprompt @1000', 'reprompt @2000', 'goodbye @3000: caller silent']);
  });

  it('stops the silence timeout when the caller makes a sound, and restarts it when the agent speaks again', () => {
    const { clock, log, timers: t } = timers();
    t.awaitCaller();
    clock.advanceTo(500);
    t.callerSpoke();
    clock.advanceTo(5000);
    expect(log).toEqual([]);
    t.awaitCaller();
    clock.advanceTo(5999);
    t.awaitCaller(); // a second call restarts the wait instead of adding a timer
    clock.advanceTo(6998);
    expect(log).toEqual([]);
    clock.advanceTo(7000);
    expect(log).toEqual(['reprompt @6999']);
  });

  it('counts reprompts again from zero after the caller takes a turn', () => {
    const { clock, log, timers: t } = timers({ userSilenceTimeoutMs: 1000, maxReprompts: 1, maxCallMs: 60_000 });
    t.awaitCaller();
    clock.advanceTo(1000);
    t.callerTookTurn();
    t.awaitCaller();
    clock.advanceTo(2000);
    t.awaitCaller();
    clock.advanceTo(3000);
    expect(log).toEqual(['reprompt @1000', 'reprompt @2000', 'goodbye @3000: caller silent']);
  });

  it('says goodbye at the maximum call length, and nothing fires after stop', () => {
    const long = timers({ userSilenceTimeoutMs: 1000, maxReprompts: 0, maxCallMs: 4000 });
    long.clock.advanceTo(3999);
    expect(long.log).toEqual([]);
    long.clock.advanceTo(4000);
    expect(long.log).toEqual(['goodbye @4000: maximum call length reached']);

    const stopped = timers({ userSilenceTimeoutMs: 1000, maxReprompts: 0, maxCallMs: 4000 });
    stopped.timers.awaitCaller();
    stopped.timers.stop();
    stopped.clock.advanceTo(10_000);
    expect(stopped.log).toEqual([]);
  });
});
