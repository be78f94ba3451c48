/** User groups of an organization (docs/contracts.md "Groups"): who may open a distributed agent with allowed_group_ids. */
export interface UserGroup {
  id: string;
  organizationId: string;
  name: string;
  createdBy: string | null;
  createdAt: string;
}

/** `{group:{id, name, memberCount, createdAt}}` of the groups endpoints. */
export interface GroupView {
  id: string;
  name: string;
  memberCount: number;
  createdAt: string;
}

export interface GroupMemberView {
  userId: string;
  email: string;
  displayName: string;
  addedAt: string;
}

/** A distributed agent whose allowed_group_ids names a group (any agent row of the organization, deleted ones too). */
export interface GroupRestrictedAgent {
  agentId: string;
  allowedGroupIds: string[];
  requireOrgMembership: boolean;
}

export interface GroupRepository {
  /** Throws CONFLICT when the organization already has a group of that name (case-insensitive). */
  create(group: UserGroup): Promise<void>;
  find(organizationId: string, id: string): Promise<GroupView | null>;
  /** Oldest first, with member counts. */
  list(organizationId: string): Promise<GroupView[]>;
  delete(organizationId: string, id: string): Promise<boolean>;
  /** Idempotent. */
  addMember(organizationId: string, groupId: string, userId: string, at: string): Promise<void>;
  removeMember(organizationId: string, groupId: string, userId: string): Promise<boolean>;
  listMembers(organizationId: string, groupId: string): Promise<GroupMemberView[]>;
  /** True when the user belongs to at least one of these groups of the organization. */
  isMemberOfAny(organizationId: string, groupIds: readonly string[], userId: string): Promise<boolean>;
  /** Drops the user from every group of the organization (they left it); returns how many memberships went. */
  removeUser(organizationId: string, userId: string): Promise<number>;
  agentsRestrictedTo(organizationId: string, groupId: string): Promise<GroupRestrictedAgent[]>;
}
