export { FileTransport, defaults as fileTransportDefaults, type FileTransportOptions } from './file-transport.js';
export { runFileCall, decodeCall, type FileCallOptions, type FileCallResult } from './file-call.js';
// Deprecated re-exports of `shoal talk`'s runner, which now lives in src/cli (the one import from transports into
// cli that the import-direction table allows); to be removed in the next minor version.
import type { TalkCommandOptions } from '../../cli/options.js';
/** @deprecated `shoal talk`'s runner, moved to the command line; run `shoal talk` instead. */
export { runTalk, TalkInputError } from '../../cli/run-talk.js';
/** @deprecated the options of `shoal talk`; see `shoal talk --help`. */
export type TalkOptions = TalkCommandOptions;
