/** Accounts, API keys, credit, rate limits and voice models of the self-hosted service, over SQLite. */
export type * from './types.js';
export { openDatabase, migrate, type DatabaseOptions, type SqliteDatabase } from './database.js';
export { migrations, type Migration } from './migrations.js';
export { FileArea } from './file-area.js';
export { SqliteAccountStore, UnknownUserError } from './sqlite-account-store.js';
export { SqliteVoiceModelStore } from './sqlite-voice-model-store.js';
export { openSqliteStores, ensureDevKey, type SqliteStores } from './sqlite-stores.js';
export { StoreAccountGate, priceOf, type Pricing, type StoreAccountGateOptions } from './account-gate.js';
export { KeyRateLimiter, type RateLimitOptions } from './rate-limiter.js';
export { StoreVoiceResolver, canSee } from './voice-resolver.js';
export { hashKeySecret, newKeySecret, formatMicros, creditsToMicros, microsPerCredit } from './ids.js';
export { openAccountServices, type AccountServices, type AccountServicesOptions } from './wiring.js';
export { CreditHold, InsufficientCreditError } from './credit-hold.js';
