import type { Carrier, CarrierName } from './carrier.js';
import { exotelCarrier } from './exotel.js';
import { plivoCarrier } from './plivo.js';
import { telnyxCarrier } from './telnyx.js';
import { twilioCarrier } from './twilio.js';
import { vonageCarrier } from './vonage.js';

export type { Carrier, CarrierEvent, CarrierName } from './carrier.js';
export { twilioCarrier, telnyxCarrier, plivoCarrier, vonageCarrier, exotelCarrier };

/** Every carrier whose media stream Shoal speaks, by name. */
export const carriers: Readonly<Record<CarrierName, Carrier>> = {
  twilio: twilioCarrier,
  telnyx: telnyxCarrier,
  plivo: plivoCarrier,
  vonage: vonageCarrier,
  exotel: exotelCarrier,
};
