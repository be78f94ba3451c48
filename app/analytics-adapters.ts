import type { Knex } from 'knex';

import { BufferedRetrievalRecorder } from '../adapters/postgres/analytics/buffered.retrieval-recorder';
import { PostgresAnalyticsStore } from '../adapters/postgres/analytics/postgres.analytics-store';
import { PostgresKbAnalytics } from '../adapters/postgres/analytics/postgres.kb-analytics';
import { PostgresLearningStore } from '../adapters/postgres/analytics/postgres.learning-store';
import { RetrievalJournal } from '../adapters/postgres/analytics/retrieval-journal';
import type { Logger } from './logger';

/** The analytics adapters on the relational store: one recorder per process, shared by chat, search and reads. */
export interface AnalyticsAdapters {
  store: PostgresAnalyticsStore;
  kb: PostgresKbAnalytics;
  learning: PostgresLearningStore;
  recorder: BufferedRetrievalRecorder;
}

/**
 * `journalDir`: where buffered retrieval events are journaled so a crash loses none (DATA_DIR/analytics-journal;
 * none for an in-memory database, which a crash loses anyway).
 */
export function createAnalyticsAdapters(db: Knex, log: Logger, options: { journalDir?: string } = {}): AnalyticsAdapters {
  const logTo = (level: 'warn' | 'error', message: string, extra?: unknown) => log(level, message, extra);
  const journal = options.journalDir ? new RetrievalJournal({ dir: options.journalDir, log: logTo }) : undefined;
  return {
    store: new PostgresAnalyticsStore(db),
    kb: new PostgresKbAnalytics(db),
    learning: new PostgresLearningStore(db),
    recorder: new BufferedRetrievalRecorder(db, { journal, log: logTo }),
  };
}
