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
  /**
   * Send a transfer to a name that is not configured to `defaultTarget` (`--transfer-unknown-to-default`). Off by
   * default: the dialogue is told the name is unknown and which ones exist, so it can say so or ask again.
   */
  unknownToDefault?: boolean;
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

/** A phone number as written by people ("+1 (415) 555-0100", "tel:+1.415.555.0100") in E.164, or the text unchanged. */
export function compact(to: string): string {
  const bare = to.replace(/[\s().-]/g, '');
  return isPhoneNumber(bare) ? bare : to;
}

/** The same number written bare, as `tel:` or with spaces compares equal. */
function sameAddress(a: string, b: string): boolean {
  const plain = (to: string) => compact(to).replace(/^tel:/i, '').toLowerCase();
  return plain(a) === plain(b);
}

/**
 * Where `transfer_call` with these arguments goes under `policy`: a configured name, the default target, or a
 * number/URI the operator configured. Throws TransferTargetError (no such target) or TransferRefusedError (an
 * address the operator did not allow), whose messages are written for the dialogue to read.
 */
export function resolveTransfer(args: Record<string, unknown>, policy: TransferPolicy): AllowedTransfer {
  const asked = typeof args['to'] === 'string' ? args['to'].trim() : '';
  // Own names only: "constructor" or "__proto__" must not find what every object inherits.
  if (asked && Object.hasOwn(policy.targets, asked)) return { to: policy.targets[asked]!, name: asked };
  const address = compact(asked);
  if (asked && isAddress(address)) {
    const configured = Object.entries(policy.targets).find(([, to]) => sameAddress(to, address));
    if (configured) return { to: configured[1], name: configured[0] };
    if (policy.defaultTarget && sameAddress(policy.defaultTarget, address)) return { to: policy.defaultTarget };
    if (policy.allowAnyTarget) return { to: address };
    throw new TransferRefusedError(asked, Object.keys(policy.targets));
  }
  if (asked && !policy.unknownToDefault) throw new TransferTargetError(asked, Object.keys(policy.targets));
  if (!policy.defaultTarget) throw new TransferTargetError(asked || '(no target)', Object.keys(policy.targets));
  return { to: policy.defaultTarget };
}

/** `transfer_call` named a destination that is neither a configured target nor a number/URI. */
export class TransferTargetError extends Error {
  override readonly name = 'TransferTargetError';
  constructor(
    readonly to: string,
    readonly known: readonly string[] = [],
  ) {
    const names = known.length > 0 ? `; the targets are: ${known.join(', ')}` : '';
    super(`no transfer target for "${to}"${names} (the operator names more with --transfer "NAME=+1…", or sets --transfer-to)`);
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
