/** Packages Shoal uses only when a feature needs them, loaded through one helper that names what to install. */
export { optionalPackages, MissingPackageError, requireOptional, importOptional, optionalPackageDir } from './load.js';
export type { OptionalPackageName } from './load.js';
