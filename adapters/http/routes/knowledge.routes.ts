import type { knowledgeOperations } from '../../../contracts/operations/knowledge';
import { agentDeleteImpact, linkKnowledgeBase, listAgentKnowledgeBases, unlinkKnowledgeBase } from '../../../core/knowledge/agent-links';
import {
  deleteDocument,
  extractText,
  findDuplicateUpload,
  getDocument,
  listDocuments,
  retryDocument,
  uploadDocument,
} from '../../../core/knowledge/documents';
import { knowledgeBaseFor } from '../../../core/knowledge/kb-access';
import {
  createKnowledgeBase,
  deleteKnowledgeBase,
  getKnowledgeBase,
  listKnowledgeBases,
  updateKnowledgeBase,
} from '../../../core/knowledge/knowledge-bases';
import type { KnowledgeDeps } from '../../../core/knowledge/knowledge-deps';
import { clearSearchLog, knowledgeMap, listSearchLog } from '../../../core/knowledge/knowledge-views';
import { searchKnowledge } from '../../../core/knowledge/search';
import { type HandlerMap, requireActor, typedHandlers } from '../handler';
import { readMultipartFile } from './knowledge.multipart';

const ok = (body: unknown, status = 200) => ({ status, body });
const page = (q: { limit: number; offset: number }) => ({ limit: q.limit, offset: q.offset });

export function knowledgeRoutes(d: KnowledgeDeps): HandlerMap {
  const maxBytes = d.settings.uploadMaxBytes;
  return typedHandlers<typeof knowledgeOperations>()({
    createKnowledgeBase: async (ctx) => ok({ knowledgeBase: await createKnowledgeBase(d, requireActor(ctx), ctx.body) }, 201),
    listKnowledgeBases: async (ctx) => ok(await listKnowledgeBases(d, requireActor(ctx), page(ctx.query))),
    getKnowledgeBase: async (ctx) => ok({ knowledgeBase: await getKnowledgeBase(d, requireActor(ctx), ctx.params.id) }),
    updateKnowledgeBase: async (ctx) => {
      const kb = await updateKnowledgeBase(d, requireActor(ctx), ctx.params.id, ctx.body);
      return ok({ ...kb, knowledgeBase: kb });
    },
    deleteKnowledgeBase: async (ctx) => {
      await deleteKnowledgeBase(d, requireActor(ctx), ctx.params.id);
      return { status: 204 };
    },
    linkKnowledgeBase: async (ctx) => ok(await linkKnowledgeBase(d, requireActor(ctx), ctx.params.id, ctx.params.agentId, ctx.body)),
    unlinkKnowledgeBase: async (ctx) => ok(await unlinkKnowledgeBase(d, requireActor(ctx), ctx.params.id, ctx.params.agentId)),
    listAgentKnowledgeBases: async (ctx) => ok(await listAgentKnowledgeBases(d, requireActor(ctx), ctx.params.agentId)),
    agentKnowledgeDeleteImpact: async (ctx) => ok(await agentDeleteImpact(d, requireActor(ctx), ctx.params.agentId)),
    uploadDocument: async (ctx) => {
      const actor = requireActor(ctx);
      // permission and existence first, so a refused upload is not read at all
      await knowledgeBaseFor(d.store.repos, actor, ctx.params.id, 'edit');
      const file = await readMultipartFile(ctx.req, { maxBytes });
      const upload = { filename: file.filename, declaredMimeType: file.mimeType, bytes: file.bytes };
      if (ctx.query.allowDuplicate !== true) {
        const existing = await findDuplicateUpload(d, actor, ctx.params.id, upload);
        const message = 'This knowledge base already holds a document with the same content; send allowDuplicate=true to store it again';
        if (existing?.requeuedJobId)
          return ok(
            { document: existing.document, jobId: existing.requeuedJobId, message: 'The document had failed; processing started again' },
            201,
          );
        if (existing) return ok({ document: existing.document, duplicate: true, message }, 200);
      }
      const options = { webhookUrl: file.fields.webhookUrl ?? ctx.query.webhookUrl };
      return ok(await uploadDocument(d, actor, ctx.params.id, upload, options), 201);
    },
    listDocuments: async (ctx) =>
      ok(await listDocuments(d, requireActor(ctx), ctx.params.id, { ...page(ctx.query), status: ctx.query.status })),
    getDocument: async (ctx) => ok(await getDocument(d, requireActor(ctx), ctx.params.id, ctx.params.docId)),
    deleteDocument: async (ctx) => ok(await deleteDocument(d, requireActor(ctx), ctx.params.id, ctx.params.docId)),
    retryDocument: async (ctx) =>
      ok(await retryDocument(d, requireActor(ctx), ctx.params.id, ctx.params.docId, { webhookUrl: ctx.body.webhookUrl })),
    extractText: async (ctx) => {
      const actor = requireActor(ctx);
      const file = await readMultipartFile(ctx.req, { maxBytes });
      return ok(await extractText(d, actor, { filename: file.filename, declaredMimeType: file.mimeType, bytes: file.bytes }));
    },
    searchKnowledge: async (ctx) =>
      ok(
        await searchKnowledge(d, requireActor(ctx), ctx.body, {
          source: ctx.query.source,
          agentId: ctx.query.agentId,
          conversationId: ctx.query.conversationId,
          messageId: ctx.query.messageId,
        }),
      ),
    knowledgeMap: async (ctx) => ok(await knowledgeMap(d, requireActor(ctx), ctx.params.id)),
    listSearchLog: async (ctx) => ok(await listSearchLog(d, requireActor(ctx), ctx.params.id, page(ctx.query))),
    clearSearchLog: async (ctx) => ok(await clearSearchLog(d, requireActor(ctx), ctx.params.id)),
  });
}
