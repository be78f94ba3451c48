import type { Knex } from 'knex';

import { BufferedRetrievalRecorder } from '../adapters/postgres/analytics/buffered.retrieval-recorder';
import { PostgresAnalyticsStore } from '../adapters/postgres/analytics/postgres.analytics-store';
import { PostgresKbAnalytics } from '../adapters/postgres/analytics/postgres.kb-analytics';
import { PostgresLearningStore } from '../adapters/postgres/analytics/postgres.learning-store';
import type { Logger } from './logger';

/** The analytics adapters on the relational store: one recorder per process, shared by chat, search and reads. */
export interface AnalyticsAdapters {
  store: PostgresAnalyticsStore;
  kb: PostgresKbAnalytics;
  learning: PostgresLearningStore;
  recorder: BufferedRetrievalRecorder;
}

export function createAnalyticsAdapters(db: Knex, log: Logger): AnalyticsAdapters {
  return {
    store: new PostgresAnalyticsStore(db),
    kb: new PostgresKbAnalytics(db),
    learning: new PostgresLearningStore(db),
    recorder: new BufferedRetrievalRecorder(db, { log: (level, message, extra) => log(level, message, extra) }),
  };
}
