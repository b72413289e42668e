import type { CallOptions } from './defaults.js';
import type { HttpTransport } from './http.js';
import type { ApiCredit, UserPackage } from './types.js';

export interface ApiCreditQuery {
  check_free_credit?: boolean;
  team_id?: string;
}

/** `/wallet/{user_id}/...`; `userId` defaults to `self`. */
export class Wallet {
  constructor(private readonly http: HttpTransport) {}

  package(userId = 'self', options: CallOptions = {}): Promise<UserPackage> {
    const path = `/wallet/${encodeURIComponent(userId)}/package`;
    return this.http.json<UserPackage>({ method: 'GET', path, what: `GET ${path}`, call: options });
  }

  apiCredit(userId = 'self', query: ApiCreditQuery = {}, options: CallOptions = {}): Promise<ApiCredit> {
    const path = `/wallet/${encodeURIComponent(userId)}/api-credit`;
    return this.http.json<ApiCredit>({ method: 'GET', path, query: { ...query }, what: `GET ${path}`, call: options });
  }
}
