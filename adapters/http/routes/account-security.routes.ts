import type { accountSecurityOperations } from '../../../contracts/operations/account-security';
import { changePassword, setAccountStatus } from '../../../core/identity/account-security';
import type { IdentityDeps } from '../../../core/identity/identity-deps';
import { toOrganizationClaims, toUserView } from '../../../core/identity/session';
import { type HandlerMap, requireActor, typedHandlers } from '../handler';
import { setSessionCookie } from '../session-cookie';

export function accountSecurityRoutes(identity: IdentityDeps): HandlerMap {
  return typedHandlers<typeof accountSecurityOperations>()({
    changePassword: async (ctx) => {
      const session = await changePassword(identity, requireActor(ctx), ctx.body);
      setSessionCookie(ctx.req, ctx.res, session.accessToken, identity.settings.accessTokenSeconds);
      return { status: 200, body: { success: true, data: session } };
    },
    setAccountStatus: async (ctx) => {
      const user = await setAccountStatus(identity, requireActor(ctx), ctx.params.id, ctx.body.status);
      const memberships = await identity.store.repos.memberships.listForUser(user.id);
      return { status: 200, body: { user: toUserView(user, toOrganizationClaims(memberships, null)) } };
    },
  });
}
