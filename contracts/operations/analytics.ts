import { errors, op } from '../operation';

/** Organization analytics (spec 4.12), knowledge-base analytics and the learning prior (4.6), message feedback. */
const tags = ['analytics'];
const uuid = { type: 'string', format: 'uuid' } as const;
const num = { type: 'number' } as const;
const int = { type: 'integer' } as const;

const rangeQuery = {
  type: 'object',
  required: ['organizationId', 'startDate', 'endDate'],
  properties: {
    organizationId: uuid,
    startDate: { type: 'string', description: 'ISO 8601 date (start of that day) or date-time, inclusive' },
    endDate: { type: 'string', description: 'ISO 8601 date (the whole day is included) or date-time, exclusive' },
    botId: uuid,
    model: { type: 'string' },
    timezone: { type: 'string', description: 'IANA time zone of day boundaries and date-only bounds (default UTC)' },
  },
} as const;

const metric = {
  type: 'object',
  required: ['value', 'trend', 'change'],
  properties: { value: num, trend: { type: 'string', enum: ['up', 'down', 'stable'] }, change: num },
};
const RANGE_RULES =
  'Caller: a member of organizationId with analytics access (owner, admin, editor, member; 403 otherwise); platform administrators read any organization. ' +
  'A message counts once (user and assistant messages); tokens, cost (USD) and response time (ms, request to last token) are those of answers; ' +
  "a conversation counts in the period it was created in, under the model of its first answer. With `model`, only that model's answers and conversations count. ";

const orgOp = <const Id extends string, const Path extends string>(
  operationId: Id,
  path: Path,
  summary: string,
  schema: Record<string, unknown>,
) =>
  op({
    operationId,
    method: 'get',
    path,
    summary: RANGE_RULES + summary,
    tags,
    auth: 'user',
    query: rangeQuery,
    responses: { '200': { description: 'Analytics', schema }, ...errors(400, 401, 403) },
  });

const totalsItem = (key: string) => ({
  type: 'object',
  required: [key, 'conversations', 'messages', 'tokens', 'cost', 'averageResponseTime'],
  properties: { [key]: { type: ['string', 'null'] }, conversations: int, messages: int, tokens: int, cost: num, averageResponseTime: int },
});

const kbParams = { type: 'object', required: ['id'], properties: { id: uuid } } as const;
const feedbackBody = {
  type: 'object',
  required: ['rating'],
  properties: { rating: { type: 'string', enum: ['up', 'down'] }, comment: { type: ['string', 'null'], maxLength: 2000 } },
} as const;
const feedbackResponse = {
  type: 'object',
  required: ['feedback'],
  properties: {
    feedback: {
      type: 'object',
      required: ['id', 'messageId', 'conversationId', 'rating', 'comment', 'createdAt', 'updatedAt'],
      properties: {
        id: uuid,
        messageId: uuid,
        conversationId: uuid,
        rating: { type: 'string' },
        comment: { type: ['string', 'null'] },
        createdAt: { type: 'string' },
        updatedAt: { type: 'string' },
      },
    },
  },
};

export const analyticsOperations = [
  orgOp(
    'analyticsOverview',
    '/api/analytics/overview',
    'Five metrics, each {value, trend, change}: change is the percent change against the previous period of the same length just before startDate, ' +
      'rounded to two decimals; when the previous value is 0 the change is 100 (current above 0) or 0 (both 0). trend is `stable` when |change| <= 1, else `up` or `down`.',
    {
      type: 'object',
      required: ['totalConversations', 'totalMessages', 'totalTokens', 'totalCost', 'averageResponseTime'],
      properties: {
        totalConversations: metric,
        totalMessages: metric,
        totalTokens: metric,
        totalCost: metric,
        averageResponseTime: metric,
      },
    },
  ),
  orgOp(
    'analyticsDaily',
    '/api/analytics/daily',
    'One point per local day of the range (UTC unless `timezone`), empty days included, oldest first: {date (YYYY-MM-DD), conversations, messages, tokens, cost, averageResponseTime}.',
    { type: 'array', items: totalsItem('date') },
  ),
  orgOp(
    'analyticsModels',
    '/api/analytics/models',
    'Per model of the answers: {model, conversations, messages, tokens, cost, averageResponseTime}, highest cost first.',
    { type: 'array', items: totalsItem('model') },
  ),
  orgOp(
    'analyticsBots',
    '/api/analytics/bots',
    'Per agent: {botId, name, conversations, messages, tokens, cost, averageResponseTime}, most messages first.',
    { type: 'array', items: totalsItem('botId') },
  ),
  op({
    operationId: 'analyticsRealtime',
    method: 'get',
    path: '/api/analytics/realtime',
    summary:
      'Activity since `since` (default: the last 15 minutes): conversations started, messages, activeUsers (distinct people who sent a message), ' +
      'responseTimes {average, p95} in ms of the answers. Same access rule as the overview.',
    tags,
    auth: 'user',
    query: {
      type: 'object',
      required: ['organizationId'],
      properties: { organizationId: uuid, since: { type: 'string', format: 'date-time' } },
    },
    responses: {
      '200': {
        description: 'Realtime',
        schema: {
          type: 'object',
          required: ['since', 'conversations', 'messages', 'activeUsers', 'responseTimes'],
          properties: {
            since: { type: 'string' },
            until: { type: 'string' },
            conversations: int,
            messages: int,
            activeUsers: int,
            responseTimes: { type: 'object' },
          },
        },
      },
      ...errors(400, 401, 403),
    },
  }),
  op({
    operationId: 'knowledgeBaseAnalytics',
    method: 'get',
    path: '/api/knowledge/kb/:id/analytics',
    summary:
      'Analytics of a knowledge base over the last `days` days (read access). `section` picks one view: trends -> queryTrends {totalQueries, daily[], topQueries[]}; ' +
      'agents -> agentUsageBreakdown[] {agentId, name, queries, conversations, answeredWithSources, cost, lastUsedAt}; gaps -> knowledgeGaps {totalQueries, unansweredQueries, gapRate, gaps[]} ' +
      '(queries this knowledge base returned nothing for); content -> contentUtilization {totalDocuments, totalChunks, usedDocuments, usedChunks, utilizationRate, topChunks[], unusedDocuments[]}; ' +
      "costs -> costAttribution {totalCost, costPerQuery, bySource[], byAgent[]} (a turn's cost is split evenly across the knowledge bases it searched); " +
      'resource-performance -> resourcePerformance[] per source (uploads as sourceId null) {hits, averageScore, positiveFeedback, negativeFeedback}; ' +
      'feedback-gaps -> feedbackGaps {negativeAnswers, items[]} (answers rated down, with their query, comment and documents); funnel -> conversionFunnel {stages[], rates}; ' +
      'learning -> {learningReadiness:{score (0-100), breakdown[], stages[] of {id, threshold, unlocked, progress (0-1)}, priorEnabled, priorActive}}. ' +
      'Without section: the dashboard with the eight views (not learning). `limit` caps every list.',
    tags: ['knowledge', ...tags],
    auth: 'user',
    params: kbParams,
    query: {
      type: 'object',
      properties: {
        section: { type: 'string' },
        days: { type: 'integer', default: 30 },
        limit: { type: 'integer', default: 10 },
      },
    },
    responses: { '200': { description: 'Views', schema: { type: 'object' } }, ...errors(400, 401, 403, 404) },
  }),
  op({
    operationId: 'setLearningPrior',
    method: 'patch',
    path: '/api/knowledge/kb/:id/learning-prior',
    summary:
      "Turn the learning prior on or off (edit access; on by default). While on and computed, each chunk's learned prior (-1..1, from retrieval and feedback) shifts its " +
      'importance by at most 0.5, so its combined ranking score by at most 0.075; off restores the plain ranking.',
    tags: ['knowledge', ...tags],
    auth: 'user',
    params: kbParams,
    body: { type: 'object', required: ['enabled'], properties: { enabled: { type: 'boolean' } } },
    responses: {
      '200': { description: 'Setting', schema: { type: 'object', required: ['enabled'], properties: { enabled: { type: 'boolean' } } } },
      ...errors(400, 401, 403, 404),
    },
  }),
  op({
    operationId: 'refreshLearningPrior',
    method: 'post',
    path: '/api/knowledge/kb/:id/learning-prior/refresh',
    summary:
      'Recompute the priors now from the last 90 days (edit access; a background job also refreshes them): prior = 0.8 (up - down) / (up + down + 2) + 0.2 min(1, ln(1 + uses) / ln 51), ' +
      'uses weighted by recency (half-life 30 days). Answers {documents}: how many documents hold a prior.',
    tags: ['knowledge', ...tags],
    auth: 'user',
    params: kbParams,
    responses: {
      '200': { description: 'Refreshed', schema: { type: 'object', required: ['documents'], properties: { documents: int } } },
      ...errors(401, 403, 404),
    },
  }),
  op({
    operationId: 'rateMessage',
    method: 'post',
    path: '/api/conversations/:id/messages/:messageId/feedback',
    summary:
      'Rate an answer of a conversation you can see: rating `up` or `down`, optional comment (max 2000 characters). One rating per person and message; rating again replaces it. ' +
      'Feeds the feedback-gaps view and the learning prior.',
    tags: ['chat', ...tags],
    auth: 'user',
    params: { type: 'object', required: ['id', 'messageId'], properties: { id: uuid, messageId: uuid } },
    body: feedbackBody,
    responses: { '200': { description: 'Stored', schema: feedbackResponse }, ...errors(400, 401, 404) },
  }),
  op({
    operationId: 'ratePublicMessage',
    method: 'post',
    path: '/api/public/agents/:slug/conversations/:conversationId/messages/:messageId/feedback',
    summary: 'A visitor rates an answer of their own conversation (anonymousId required), as the authenticated feedback endpoint.',
    tags: ['public-chat', ...tags],
    auth: 'public',
    params: {
      type: 'object',
      required: ['slug', 'conversationId', 'messageId'],
      properties: { slug: { type: 'string' }, conversationId: uuid, messageId: uuid },
    },
    body: {
      ...feedbackBody,
      required: ['rating', 'anonymousId'],
      properties: { ...feedbackBody.properties, anonymousId: { type: 'string' } },
    },
    responses: { '200': { description: 'Stored', schema: feedbackResponse }, ...errors(400, 404) },
  }),
] as const;
