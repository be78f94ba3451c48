import { randomUUID } from 'node:crypto';

import { LITERALS, PUBLIC_BY_DESIGN, resourceOf } from './bola-params';
import { type OpenApiOperation, sampleFor } from './schema-samples';
import type { TenantWorld } from './tenant-world';

export type Caller = 'b-owner' | 'b-admin' | 'b-member' | 'b-viewer' | 'b-key' | 'visitor' | 'a-viewer';

export interface Probe {
  operationId: string;
  caller: Caller;
  method: string;
  path: string;
  body?: unknown;
  multipart?: boolean;
  /** A's identifiers this request names (they may be echoed back; any other A identifier is a leak). */
  sent: string[];
  /** True when the request names A's resources in its path or body: any 2xx is a cross-tenant read or write. */
  mustBeDenied: boolean;
}

interface Slot {
  where: 'path' | 'body' | 'query';
  name: string;
  resource: string;
}

const ID_FIELD = /(^id$|Id$|Ids$)/;

/** Identifier slots of an operation; `unmapped` lists those bola-params.ts cannot resolve. */
export function slotsOf(op: OpenApiOperation): { slots: Slot[]; unmapped: string[] } {
  const slots: Slot[] = [];
  const unmapped: string[] = [];
  const add = (where: Slot['where'], name: string, key = name) => {
    const resource = resourceOf(op.path, key);
    if (resource) slots.push({ where, name, resource });
    else unmapped.push(`${where} ${name}`);
  };
  for (const p of op.parameters) {
    if (p.in === 'path') add('path', p.name);
    else if (p.in === 'query' && ID_FIELD.test(p.name)) add('query', p.name);
  }
  if (op.body && op.body !== 'multipart') {
    for (const [name, schema] of Object.entries<any>(op.body.properties ?? {})) {
      if (ID_FIELD.test(name)) add('body', name);
      for (const [inner] of Object.entries<any>(schema?.items?.properties ?? {})) {
        if (ID_FIELD.test(inner)) add('body', `${name}[].${inner}`);
      }
    }
  }
  return { slots, unmapped };
}

const isTenant = (resource: string) => !resource.includes(':');

function valueFor(world: TenantWorld, resource: string, i: number, attacker: string): string {
  if (resource === 'attacker:visitor') return attacker;
  if (resource in LITERALS) return LITERALS[resource]!;
  const list = world.ids[resource];
  if (!list?.length) throw new Error(`tenant-world.ts has no ${resource} resource`);
  return list[i % list.length]!;
}

const CALLERS: Record<OpenApiOperation['lane'], Caller[]> = {
  user: ['b-owner', 'b-admin', 'b-member', 'b-viewer'],
  apiKey: ['b-key'],
  public: ['visitor', 'b-owner'],
  open: ['visitor'],
};
/** The same identifier spelled as sent, upper-cased, percent-encoded, and with a trailing slash on the path. */
const FORMS = ['canonical', 'upper', 'encoded', 'slash'] as const;
const percentEncoded = (v: string) => [...v].map((c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`).join('');

/** Every cross-tenant probe for one operation (none when it names no tenant resource). */
export function probesFor(op: OpenApiOperation, world: TenantWorld, callers = CALLERS[op.lane]): Probe[] {
  const { slots } = slotsOf(op);
  const tenantSlots = slots.filter((s) => isTenant(s.resource));
  if (!tenantSlots.length) return [];
  const instances = Math.max(...tenantSlots.map((s) => world.ids[s.resource]?.length ?? 1));
  const denied = tenantSlots.some((s) => s.where !== 'query' && !PUBLIC_BY_DESIGN.has(s.resource));
  const probes: Probe[] = [];
  for (const caller of callers) {
    for (let i = 0; i < Math.min(instances, 3); i++) {
      for (const form of FORMS) {
        if ((form === 'slash' || form === 'encoded') && !slots.some((s) => s.where === 'path')) continue;
        const attacker = randomUUID();
        const sent: string[] = [];
        const value = (s: Slot) => {
          const v = valueFor(world, s.resource, i, attacker);
          if (isTenant(s.resource)) sent.push(v);
          if (!isTenant(s.resource)) return v;
          if (form === 'upper' && /^[0-9a-f-]{36}$/.test(v)) return v.toUpperCase();
          return v;
        };
        let path = op.path;
        const query = new URLSearchParams();
        for (const p of op.parameters) if (p.in === 'query' && p.required) query.set(p.name, String(sampleFor(p.schema)));
        let body: any = op.body && op.body !== 'multipart' ? sampleFor(op.body) : undefined;
        for (const s of slots) {
          if (s.where === 'path') {
            const v = value(s);
            path = path.replace(`{${s.name}}`, form === 'encoded' && isTenant(s.resource) ? percentEncoded(v) : encodeURIComponent(v));
          } else if (s.where === 'query') query.set(s.name, value(s));
          else body = setBodyId(body ?? {}, s.name, value(s), op.body);
        }
        if (form === 'slash') path += '/';
        const qs = query.toString();
        probes.push({
          operationId: op.operationId,
          caller,
          method: op.method,
          path: qs ? `${path}?${qs}` : path,
          body,
          multipart: op.body === 'multipart',
          sent,
          mustBeDenied: denied,
        });
      }
    }
  }
  return probes;
}

function setBodyId(body: any, name: string, value: string, schema: any): any {
  const [field, inner] = name.split('[].');
  const prop = schema?.properties?.[field!];
  if (inner) {
    const item = { ...(sampleFor(prop?.items) as object), [inner]: value };
    return { ...body, [field!]: [item] };
  }
  return { ...body, [field!]: prop?.type === 'array' ? [value] : value };
}
