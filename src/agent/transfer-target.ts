/** Where transfers may go: the operator's named targets, and whether a dialogue may name any number itself. */
export interface TransferPolicy {
  /** Names a dialogue may transfer to (`transfer_call {to: 'front desk'}`) → number or SIP/tel URI. */
  targets: Record<string, string>;
  /** Where a transfer goes when the dialogue names no target. */
  defaultTarget?: string;
  /**
   * Let `to` be any number or SIP URI the dialogue gives (`--allow-any-transfer-target`). Off by default: an
   * LLM dialogue can be talked into dialling a premium-rate number, billed to the operator.
   */
  allowAnyTarget?: boolean;
}

/** A resolved transfer: the address dialled, and the name it was configured under (when it was). */
export interface AllowedTransfer {
  to: string;
  name?: string;
}

/** An E.164 number, bare or as a `tel:` URI. */
export function isPhoneNumber(to: string): boolean {
  return /^(tel:)?\+[1-9]\d{6,14}$/i.test(to);
}

export function isSipUri(to: string): boolean {
  return /^sips?:[^@\s]+@[^\s]+$/i.test(to);
}

function isAddress(to: string): boolean {
  return isPhoneNumber(to) || isSipUri(to);
}

/** The same number written bare, as `tel:` or with spaces compares equal. */
function sameAddress(a: string, b: string): boolean {
  const plain = (to: string) => to.replace(/^tel:/i, '').replace(/\s+/g, '').toLowerCase();
  return plain(a) === plain(b);
}

/**
 * Where `transfer_call` with these arguments goes under `policy`: a configured name, the default target, or a
 * number/URI the operator configured. Throws TransferTargetError (no such target) or TransferRefusedError (an
 * address the operator did not allow), whose messages are written for the dialogue to read.
 */
export function resolveTransfer(args: Record<string, unknown>, policy: TransferPolicy): AllowedTransfer {
  const asked = typeof args['to'] === 'string' ? args['to'].trim() : '';
  const named = asked ? policy.targets[asked] : undefined;
  if (named) return { to: named, name: asked };
  if (asked && isAddress(asked)) {
    const configured = Object.entries(policy.targets).find(([, to]) => sameAddress(to, asked));
    if (configured) return { to: configured[1], name: configured[0] };
    if (policy.defaultTarget && sameAddress(policy.defaultTarget, asked)) return { to: policy.defaultTarget };
    if (policy.allowAnyTarget) return { to: asked };
    throw new TransferRefusedError(asked, Object.keys(policy.targets));
  }
  if (!policy.defaultTarget) throw new TransferTargetError(asked || '(no target)');
  return { to: policy.defaultTarget };
}

/** `transfer_call` named a destination that is neither a configured target nor a number/URI. */
export class TransferTargetError extends Error {
  override readonly name = 'TransferTargetError';
  constructor(readonly to: string) {
    super(`no transfer target for "${to}": name it with --transfer "${to}=+1…" (or set --transfer-to)`);
  }
}

/** `transfer_call` gave a number or URI the operator did not configure, and any-target transfers are off. */
export class TransferRefusedError extends Error {
  override readonly name = 'TransferRefusedError';
  constructor(
    readonly to: string,
    readonly allowed: readonly string[],
  ) {
    const names = allowed.length > 0 ? `transfers go only to: ${allowed.join(', ')}` : 'no transfer targets are configured';
    super(`cannot transfer to ${to}: ${names} (the operator allows other numbers with --allow-any-transfer-target)`);
  }
}
