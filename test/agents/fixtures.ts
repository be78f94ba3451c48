import { randomUUID } from 'node:crypto';

import type { TestPlatform } from '../support/platform';

/**
 * Knowledge bases and documents written straight into the tables of migration 0003, so the agents suites
 * do not depend on the ingestion pipeline: a document is "indexed" when its processing_status is completed.
 */
export async function seedKnowledgeBase(
  p: TestPlatform,
  organizationId: string,
  docs: { completed?: number; failed?: number; pending?: number; processing?: number } = {},
  name = `KB ${randomUUID().slice(0, 6)}`,
): Promise<string> {
  const db = p.infra.db.knex;
  const id = randomUUID();
  const now = new Date().toISOString();
  await db('knowledge_bases').insert({
    id,
    organization_id: organizationId,
    name,
    description: `About ${name}`,
    created_at: now,
    updated_at: now,
  });
  const rows = Object.entries(docs).flatMap(([status, n]) =>
    Array.from({ length: n ?? 0 }, (_, i) => ({
      id: randomUUID(),
      organization_id: organizationId,
      knowledge_base_id: id,
      title: `${status}-${i}.txt`,
      mime_type: 'text/plain',
      processing_status: status,
      created_at: now,
      updated_at: now,
    })),
  );
  if (rows.length) await db('knowledge_documents').insert(rows);
  return id;
}

export const put = (p: TestPlatform, path: string, body: unknown, token: string) => p.http.request('PUT', path, { body, token });

export const expectError = (r: { status: number; body: any }, status: number, error: string) => {
  expect({ status: r.status, error: r.body?.error }).toEqual({ status, error });
  expect(typeof r.body.message).toBe('string');
};

export async function auditActions(p: TestPlatform, organizationId: string, resourceId: string): Promise<string[]> {
  const rows = await p.infra.db
    .knex('audit_log')
    .where({ organization_id: organizationId, resource_id: resourceId })
    .orderBy('created_at')
    .select('action');
  return rows.map((r) => r.action as string);
}
