/** `transfer_call` named a destination that is neither a number, a SIP/tel URI, nor a configured target. */
export class TransferTargetError extends Error {
  override readonly name = 'TransferTargetError';
  constructor(readonly to: string) {
    super(`no transfer target for "${to}": give a number (+14155550100, tel:+1…) or a sip: URI, or name it with --transfer "${to}=+1…" (or --transfer-to)`);
  }
}
