export { BrowserTransport, type BrowserCallInfo } from './browser-transport.js';
export { BrowserEndpoint, browserEndpointDefaults, type BrowserEndpointOptions } from './browser-endpoint.js';
export { PacedPlayout, pacedPlayoutDefaults, type PacedPlayoutOptions } from './paced-playout.js';
export {
  browserProtocol,
  callModes,
  parseClientMessage,
  type ClientMessage,
  type ServerMessage,
  type TurnLatency,
  type BrowserErrorCode,
} from './protocol.js';
export { buildDemoPage, demoPageHandler, findWebRoot, DemoPageBuildError, type AgentListing } from './demo-page.js';
export { startDemoServer, demoServerDefaults, type DemoServer, type DemoServerOptions } from './demo-server.js';
export { toBrowserMessages } from './agent-messages.js';
export { SpokenCaptions, type AgentCaption } from './spoken-captions.js';
