import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { carriers, type CarrierName } from './carriers/index.js';
import { TelephonyEndpoint, type TelephonyEndpointOptions } from './telephony-endpoint.js';

/** Options of every carrier's endpoint; `path` is Twilio's, the others are at `path/<carrier>`. */
export type CarrierEndpointsOptions = Partial<Omit<TelephonyEndpointOptions, 'carrier' | 'path'>> & Pick<TelephonyEndpointOptions, 'startCall' | 'path'>;

/** One media-stream endpoint per carrier: Twilio at `/telephony`, the others at `/telephony/telnyx`, `/plivo`, `/vonage`, `/exotel`. */
export class CarrierEndpoints {
  readonly byCarrier: Readonly<Record<CarrierName, TelephonyEndpoint>>;

  constructor(options: CarrierEndpointsOptions) {
    const base = options.path.replace(/\/$/, '');
    const byCarrier = {} as Record<CarrierName, TelephonyEndpoint>;
    for (const carrier of Object.values(carriers)) {
      const path = carrier.name === 'twilio' ? base : `${base}/${carrier.name}`;
      byCarrier[carrier.name] = new TelephonyEndpoint({ ...options, path, carrier });
    }
    this.byCarrier = byCarrier;
  }

  get all(): TelephonyEndpoint[] {
    return Object.values(this.byCarrier);
  }

  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): boolean {
    return this.all.some((endpoint) => endpoint.handleUpgrade(request, socket, head));
  }

  activeCalls(): number {
    return this.all.reduce((sum, endpoint) => sum + endpoint.activeCalls(), 0);
  }

  close(): void {
    for (const endpoint of this.all) endpoint.close();
  }
}
