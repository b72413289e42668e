/** Transports: where a call's audio comes from and goes to. */
export * from './browser/index.js';
export * from './telephony/index.js';
export * from './file/index.js';
export { AgentBusyError, CallRejectedError, callTraceparent, isCallMode, type CallMode, type CallRequest, type RunningCall, type CallSession, type StartCall } from './call-request.js';
export { PlayoutRateConverter } from './playout-rate.js';
export { TransferTargetError, TransferRefusedError, resolveTransfer, type TransferPolicy, type AllowedTransfer } from '../agent/transfer-target.js';
export * from './livekit/index.js';
