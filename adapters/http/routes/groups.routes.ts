import {
  addGroupMember,
  createGroup,
  deleteGroup,
  listGroupMembers,
  listGroups,
  removeGroupMember,
} from '../../../core/organizations/groups';
import type { OrganizationDeps } from '../../../core/organizations/organization-deps';
import { type HandlerMap, requireActor } from '../handler';

export function groupRoutes(d: OrganizationDeps): HandlerMap {
  return {
    createGroup: async (ctx) => ({ status: 201, body: await createGroup(d, requireActor(ctx), ctx.params.orgId, ctx.body) }),
    listGroups: async (ctx) => ({ status: 200, body: await listGroups(d, requireActor(ctx), ctx.params.orgId) }),
    deleteGroup: async (ctx) => {
      await deleteGroup(d, requireActor(ctx), ctx.params.orgId, ctx.params.groupId);
      return { status: 204 };
    },
    listGroupMembers: async (ctx) => ({
      status: 200,
      body: await listGroupMembers(d, requireActor(ctx), ctx.params.orgId, ctx.params.groupId),
    }),
    addGroupMember: async (ctx) => {
      await addGroupMember(d, requireActor(ctx), ctx.params.orgId, ctx.params.groupId, ctx.params.userId);
      return { status: 204 };
    },
    removeGroupMember: async (ctx) => {
      await removeGroupMember(d, requireActor(ctx), ctx.params.orgId, ctx.params.groupId, ctx.params.userId);
      return { status: 204 };
    },
  };
}
