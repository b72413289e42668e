import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { ServiceError } from '../accounts.js';
import { RequestValidationError } from '../http/errors.js';
import { principalOf } from '../http/gate.js';
import { formatMicros, microsPerCredit } from '../store/ids.js';
import type { UserRecord } from '../store/types.js';
import { IssueList } from './models-validation.js';

export interface WalletRoutesOptions {
  getUser: (id: string) => Promise<UserRecord | null>;
}

export const defaults = {
  /** A self-hosted package never ends; date-time fields about its end carry this instant. */
  openEnded: '9999-12-31T23:59:59.999Z',
  packageType: 'self-hosted',
  currency: 'usd',
};

/** The caller's own record for `self` or the caller's id; anyone else's id is 403 and reveals nothing. */
async function ownUser(
  request: FastifyRequest<{ Params: { user_id: string } }>,
  getUser: WalletRoutesOptions['getUser'],
): Promise<UserRecord> {
  const principal = principalOf(request);
  const wanted = request.params.user_id;
  if (wanted !== 'self' && wanted !== principal.userId) {
    throw new ServiceError(403, 'you can only read your own wallet; use "self" or your own user id');
  }
  const user = await getUser(principal.userId);
  if (!user) throw new ServiceError(401, 'the user of this API key no longer exists');
  return user;
}

function booleanQuery(value: unknown, name: string, issues: IssueList): boolean {
  if (value === undefined) return false;
  const text = String(Array.isArray(value) ? value[0] : value).toLowerCase();
  if (text === 'true' || text === '1') return true;
  if (text === 'false' || text === '0' || text === '') return false;
  issues.add([name], 'bool_parsing', `${name} must be true or false`, 'query');
  return false;
}

/** `GET /wallet/{user_id}/package` and `GET /wallet/{user_id}/api-credit`. */
export const walletRoutes: FastifyPluginAsync<WalletRoutesOptions> = async (app, options) => {
  app.get<{ Params: { user_id: string } }>('/wallet/:user_id/package', async (request) => {
    const user = await ownUser(request, options.getUser);
    return {
      user_id: user.id,
      type: defaults.packageType,
      total: user.grantedMicros / microsPerCredit,
      balance: user.creditMicros / microsPerCredit,
      created_at: user.createdAt,
      updated_at: user.updatedAt,
      finished_at: defaults.openEnded,
      payments_subscription_id: '',
      payments_price_id: '',
      billing_period: 'none',
      current_period_end: defaults.openEnded,
      cancel_at_period_end: false,
      cancel_at: defaults.openEnded,
      scheduled_change: {},
      last_synced_at: user.updatedAt,
      subscription_currency: defaults.currency,
      extra_balance: 0,
      has_used_trial: false,
    };
  });

  app.get<{ Params: { user_id: string }; Querystring: Record<string, unknown> }>(
    '/wallet/:user_id/api-credit',
    async (request) => {
      const user = await ownUser(request, options.getUser);
      const issues = new IssueList();
      const query = request.query ?? {};
      for (const key of Object.keys(query)) {
        if (key !== 'check_free_credit' && key !== 'team_id') issues.add([key], 'extra_forbidden', `unknown query parameter ${key}`, 'query');
      }
      const checkFree = booleanQuery(query.check_free_credit, 'check_free_credit', issues);
      if (issues.issues.length) throw new RequestValidationError(issues.issues);
      const teamId = query.team_id === undefined ? '' : String(query.team_id);
      // Self-hosted users have only their personal team, whose id is their user id.
      if (teamId && teamId !== user.id) throw new ServiceError(404, `no team ${teamId} that you belong to`);
      return {
        _id: `credit-${user.id}`,
        user_id: user.id,
        credit: formatMicros(user.creditMicros),
        created_at: user.createdAt,
        updated_at: user.updatedAt,
        has_phone_sha256: false,
        has_free_credit: checkFree ? user.freeCredit && user.creditMicros > 0 : null,
      };
    },
  );
};
