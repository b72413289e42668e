import { describe, expect, it } from 'vitest';
import { CallControl, isCallerCandidate, parseParticipantKinds, TransferRefusedError, TransferTargetError } from '../../src/transports/livekit/index.js';
import { ServerApiDouble } from '../support/livekit-room-double.js';
import { liveKitCredentials, MissingLiveKitCredentialsError } from '../../src/cli/run-livekit.js';

const sipCaller = { identity: 'sip_+15551234', kind: 'sip' as const, attributes: {} };

describe('LiveKit call control', () => {
  it('ends the call as configured: delete the room, remove the caller, or just leave', async () => {
    for (const [endCall, expected] of [['delete-room', ['deleteRoom r']], ['remove-caller', ['removeParticipant r sip_+15551234']], ['leave', []]] as const) {
      const api = new ServerApiDouble();
      await new CallControl({ rooms: api, sip: api, endCall }).endCall('r', sipCaller);
      expect(api.calls).toEqual(expected);
    }
  });

  it('resolves transfer targets: names from the table, configured URIs, else the default, else a clear error', () => {
    const api = new ServerApiDouble();
    const control = new CallControl({ rooms: api, sip: api, transferTargets: { 'human agent': 'tel:+15550100' } });
    expect(control.transferTarget({ to: 'human agent' })).toBe('tel:+15550100');
    expect(control.transferTarget({ to: '+15550100' })).toBe('tel:+15550100');
    expect(() => control.transferTarget({ to: 'sip:desk@example.com' })).toThrow(TransferRefusedError);
    expect(() => control.transferTarget({ to: 'tel:+19005550123' })).toThrow(/cannot transfer to tel:\+19005550123: transfers go only to: human agent/);
    const open = new CallControl({ rooms: api, sip: api, allowAnyTransferTarget: true });
    expect(open.transferTarget({ to: 'sip:desk@example.com' })).toBe('sip:desk@example.com');
    expect(() => control.transferTarget({ to: 'billing' })).toThrow(TransferTargetError);
    expect(() => control.transferTarget({ to: 'billing' })).toThrow(/no transfer target for "billing"; the targets are: human agent/);
    const withDefault = new CallControl({ rooms: api, sip: api, defaultTransferTo: 'tel:+15550199' });
    expect(withDefault.transferTarget({})).toBe('tel:+15550199');
  });
});

describe('caller selection', () => {
  it('takes standard, SIP and connector participants by default, never agents or egress', () => {
    const of = (kind: Parameters<typeof isCallerCandidate>[0]['kind']) => isCallerCandidate({ identity: 'x', kind, attributes: {} });
    expect(['standard', 'sip', 'connector'].map((kind) => of(kind as 'sip'))).toEqual([true, true, true]);
    expect(['agent', 'egress', 'ingress'].map((kind) => of(kind as 'sip'))).toEqual([false, false, false]);
    expect(isCallerCandidate({ identity: 'bob', kind: 'standard', attributes: {} }, { kinds: ['sip'] })).toBe(false);
    expect(isCallerCandidate({ identity: 'bob', kind: 'agent', attributes: {} }, { identity: 'bob' })).toBe(true);
  });

  it('parses --caller-kind and names the kinds that exist when one is wrong', () => {
    expect(parseParticipantKinds('SIP, standard')).toEqual(['sip', 'standard']);
    expect(() => parseParticipantKinds('sip,phone')).toThrow(/unknown participant kind phone; use one or more of standard, ingress/);
  });
});

describe('LiveKit credentials', () => {
  it('takes flags over the LIVEKIT_* environment and names what is missing', () => {
    const env = { LIVEKIT_URL: 'wss://env', LIVEKIT_API_KEY: 'envkey', LIVEKIT_API_SECRET: 'envsecret' };
    expect(liveKitCredentials({ url: 'ws://flag' }, env)).toEqual({ url: 'ws://flag', apiKey: 'envkey', apiSecret: 'envsecret' });
    expect(() => liveKitCredentials({}, { LIVEKIT_API_KEY: 'k' })).toThrow(MissingLiveKitCredentialsError);
    expect(() => liveKitCredentials({}, { LIVEKIT_API_KEY: 'k' })).toThrow('LiveKit url, api secret missing');
  });
});
