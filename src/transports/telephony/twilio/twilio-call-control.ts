import twilio from 'twilio';
import { CallControlError, type CarrierCallControl, type OutboundCall, type TransferTarget } from '../call-control.js';
import { connectTwiml, transferTwiml } from './twiml.js';

export interface TwilioCallControlOptions {
  accountSid: string;
  authToken: string;
  /** Another REST base URL than https://api.twilio.com (a test double, a proxy); edge and region settings do the rest. */
  apiBaseUrl?: string;
}

/** A Twilio HTTP client that sends every request to another base URL, keeping path, query, auth and body. */
function requestClientFor(baseUrl: URL): twilio.RequestClient {
  const client = new twilio.RequestClient();
  const request = client.request.bind(client);
  client.request = ((opts: Parameters<typeof request>[0]) => {
    const target = new URL(opts.uri);
    target.protocol = baseUrl.protocol;
    target.host = baseUrl.host;
    return request({ ...opts, uri: target.href });
  }) as typeof client.request;
  return client;
}

/** Call control through Twilio's REST API (the `twilio` package): hang up and transfer by updating the call, dial by creating one. */
export class TwilioCallControl implements CarrierCallControl {
  readonly carrier = 'twilio' as const;
  private readonly client: twilio.Twilio;

  constructor(options: TwilioCallControlOptions) {
    this.client = twilio(options.accountSid, options.authToken, {
      ...(options.apiBaseUrl ? { httpClient: requestClientFor(new URL(options.apiBaseUrl)) } : {}),
      autoRetry: true,
      maxRetries: 2,
    });
  }

  async hangup(callId: string): Promise<void> {
    await this.run('hangup', () => this.client.calls(callId).update({ status: 'completed' }));
  }

  async transfer(callId: string, target: TransferTarget): Promise<void> {
    const twiml = transferTwiml(target);
    await this.run('transfer', () => this.client.calls(callId).update({ twiml }));
  }

  async dial(call: OutboundCall): Promise<{ callId: string }> {
    const created = await this.run('dial', () =>
      this.client.calls.create({
        to: call.to,
        from: call.from,
        twiml: connectTwiml({ streamUrl: call.streamUrl, parameters: call.parameters, statusCallbackUrl: call.statusCallbackUrl }),
        ...(call.statusCallbackUrl ? { statusCallback: call.statusCallbackUrl, statusCallbackEvent: ['initiated', 'ringing', 'answered', 'completed'] } : {}),
        ...(call.machineDetection
          ? { machineDetection: 'Enable', asyncAmd: 'true', ...(call.machineDetectionCallbackUrl ? { asyncAmdStatusCallback: call.machineDetectionCallbackUrl } : {}) }
          : {}),
      }),
    );
    return { callId: created.sid };
  }

  private async run<T>(action: CallControlError['action'], request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      const status = (error as { status?: number }).status;
      throw new CallControlError(action, status, error instanceof Error ? error.message : String(error));
    }
  }
}
