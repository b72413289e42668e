/** Where transfer_call goes: own names only, numbers as people write them, unknown names refused (told to the dialogue). */
import { describe, expect, it } from 'vitest';
import { resolveTransfer, TransferRefusedError, TransferTargetError, type TransferPolicy } from '../../src/agent/transfer-target.js';
import { parseTransferTargets, transferPolicy } from '../../src/cli/phone-lines.js';

const policy: TransferPolicy = { targets: { 'front desk': '+14155550100' }, defaultTarget: '+14155550199' };

describe('transfer targets', () => {
  it('never resolves a name every object inherits', () => {
    for (const to of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf']) {
      expect(() => resolveTransfer({ to }, policy)).toThrow(TransferTargetError);
    }
  });

  it('takes a target named like an inherited property when the operator named one so', () => {
    const targets = parseTransferTargets(['__proto__=+14155550111', 'constructor=+14155550112']);
    expect(Object.keys(targets)).toEqual(['__proto__', 'constructor']);
    expect(resolveTransfer({ to: '__proto__' }, { targets })).toEqual({ to: '+14155550111', name: '__proto__' });
    expect(resolveTransfer({ to: 'constructor' }, { targets })).toEqual({ to: '+14155550112', name: 'constructor' });
  });

  it('compares a number written with spaces, dashes or brackets, and refuses it when not configured', () => {
    expect(resolveTransfer({ to: '+1 415 555 0100' }, policy)).toEqual({ to: '+14155550100', name: 'front desk' });
    expect(resolveTransfer({ to: '+1 (415) 555-0100' }, policy)).toEqual({ to: '+14155550100', name: 'front desk' });
    expect(resolveTransfer({ to: 'tel:+1-415-555-0199' }, policy)).toEqual({ to: '+14155550199' });
    expect(() => resolveTransfer({ to: '+1 900 555 0123' }, policy)).toThrow(TransferRefusedError);
    expect(resolveTransfer({ to: '+1 900 555 0123' }, { ...policy, allowAnyTarget: true })).toEqual({ to: '+19005550123' });
  });

  it('refuses an unknown name with the names that exist, unless the operator sends those to the default target', () => {
    expect(() => resolveTransfer({ to: 'billing' }, policy)).toThrow('no transfer target for "billing"; the targets are: front desk');
    expect(resolveTransfer({ to: 'billing' }, { ...policy, unknownToDefault: true })).toEqual({ to: '+14155550199' });
    expect(resolveTransfer({}, policy)).toEqual({ to: '+14155550199' });
    expect(() => resolveTransfer({}, { targets: {} })).toThrow(TransferTargetError);
  });

  it('builds the policy from the command line, numbers compacted', () => {
    const built = transferPolicy({ transfer: ['desk=+1 415 555 0100'], transferTo: '+1 415 555 0199', transferUnknownToDefault: true });
    expect({ ...built.targets }).toEqual({ desk: '+14155550100' });
    expect(built).toMatchObject({ defaultTarget: '+14155550199', unknownToDefault: true, allowAnyTarget: false });
    expect(() => transferPolicy({ transfer: ['desk=the moon'] })).toThrow(TransferTargetError);
  });
});
