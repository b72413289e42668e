import type { VoiceSettings } from '../../engines/types.js';
import type { Principal, VoiceResolver } from '../accounts.js';
import type { VoiceModelRecord, VoiceModelStore } from './types.js';

/** Whether `viewerId` may read or use a model: private models exist for their owner only. */
export function canSee(model: VoiceModelRecord, viewerId: string): boolean {
  return model.visibility !== 'private' || model.ownerId === viewerId;
}

/** Resolves `reference_id`s to the voice settings of stored models the caller may use. */
export class StoreVoiceResolver implements VoiceResolver {
  constructor(private readonly store: VoiceModelStore) {}

  async resolve(referenceId: string, principal: Principal): Promise<VoiceSettings | null> {
    const model = await this.store.get(referenceId);
    if (!model || !canSee(model, principal.userId) || model.state !== 'trained') return null;
    return model.voice;
  }

  async recordUse(referenceId: string): Promise<void> {
    await this.store.incrementTaskCount(referenceId);
  }
}
