import type { FeedbackDeps } from './feedback';
import type { KbAnalyticsDeps } from './kb-analytics';
import type { AnalyticsDeps } from './organization-analytics';

/** Everything the analytics area's use cases need (one bundle, built in app/analytics-services.ts). */
export type AnalyticsAreaDeps = AnalyticsDeps & KbAnalyticsDeps & FeedbackDeps;
