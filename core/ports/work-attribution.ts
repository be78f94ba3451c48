/**
 * Whose work a task is. The pool shares its threads fairly between tenants (organizations): their tasks wait
 * in separate queues served in turn, and one tenant holds at most its share of the threads while another has
 * work, so one organization's backlog, or a flood on its public agents, delays another's next task by one
 * task at most. Inside a tenant, parties (the organization itself, each anonymous visitor) take turns too.
 */
export interface WorkAttribution {
  /** The organization the work is for (`workTenant`); untagged work shares one tenant. */
  tenant: string;
  /** Who inside it: '' or absent for the organization's own work; `visitor:<anonymousId>` on the public lane. */
  party?: string;
  /** Told the thread time each task held (ms, measured by the pool), when it ends, failed or not. */
  charge?(threadMs: number): void;
}

export const workTenant = (organizationId: string) => `org:${organizationId}`;
