/**
 * Date ranges of the organization analytics (spec 4.12): parsing `startDate`/`endDate` in an optional IANA
 * time zone, the previous period of the same length, the local days of a range and the trend rule.
 */
import { DomainError } from '../shared/errors';

export interface AnalyticsRange {
  /** Inclusive start, exclusive end (instants). */
  from: Date;
  to: Date;
  timeZone: string;
}

/** Longest range one request may ask for (daily points are one per day). */
export const MAX_RANGE_DAYS = 731;
const DAY_MS = 86_400_000;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

const invalid = (field: string, message: string) => new DomainError('VALIDATION', message, [{ field, message }]);

export function checkTimeZone(value: unknown): string {
  if (value === undefined || value === null || value === '') return 'UTC';
  if (typeof value !== 'string') throw invalid('timezone', 'timezone must be an IANA time zone name');
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: value }).resolvedOptions().timeZone;
  } catch {
    throw invalid('timezone', `Unknown time zone ${value}; use an IANA name such as Europe/Paris`);
  }
}

const partsFormat = new Map<string, Intl.DateTimeFormat>();
function formatter(timeZone: string) {
  let f = partsFormat.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    partsFormat.set(timeZone, f);
  }
  return f;
}

/** Offset of the zone from UTC at an instant, in minutes (Paris in winter: 60). */
export function zoneOffsetMinutes(at: Date, timeZone: string): number {
  const p = Object.fromEntries(
    formatter(timeZone)
      .formatToParts(at)
      .map((x) => [x.type, x.value]),
  );
  const local = Date.UTC(+p.year, +p.month - 1, +p.day, +p.hour, +p.minute, +p.second);
  return Math.round((local - Math.floor(at.getTime() / 1000) * 1000) / 60_000);
}

/** The instant a local calendar day starts in the zone. */
export function startOfLocalDay(date: string, timeZone: string): Date {
  const [y, m, d] = date.split('-').map(Number);
  const guess = Date.UTC(y, m - 1, d);
  let t = guess - zoneOffsetMinutes(new Date(guess), timeZone) * 60_000;
  t = guess - zoneOffsetMinutes(new Date(t), timeZone) * 60_000; // across a DST change the second reading is right
  return new Date(t);
}

/** The local calendar date (YYYY-MM-DD) of an instant. */
export function localDate(at: Date, timeZone: string): string {
  return new Date(at.getTime() + zoneOffsetMinutes(at, timeZone) * 60_000).toISOString().slice(0, 10);
}

const nextDate = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10);

function parseBound(field: string, value: unknown, timeZone: string, end: boolean): Date {
  if (typeof value !== 'string' || !value.trim()) throw invalid(field, `${field} is required (ISO 8601 date or date-time)`);
  if (DATE_ONLY.test(value)) {
    if (Number.isNaN(Date.parse(`${value}T00:00:00Z`))) throw invalid(field, `${field} is not a valid date`);
    // A date-only end date includes its whole day.
    return startOfLocalDay(end ? nextDate(value) : value, timeZone);
  }
  const t = new Date(value);
  if (Number.isNaN(t.getTime())) throw invalid(field, `${field} is not a valid ISO 8601 date or date-time`);
  return t;
}

export function parseRange(query: { startDate?: unknown; endDate?: unknown; timezone?: unknown }): AnalyticsRange {
  const timeZone = checkTimeZone(query.timezone);
  const from = parseBound('startDate', query.startDate, timeZone, false);
  const to = parseBound('endDate', query.endDate, timeZone, true);
  if (to.getTime() <= from.getTime()) throw invalid('endDate', 'endDate must be after startDate');
  if (to.getTime() - from.getTime() > MAX_RANGE_DAYS * DAY_MS) throw invalid('endDate', `A range covers at most ${MAX_RANGE_DAYS} days`);
  return { from, to, timeZone };
}

/** The period of the same length just before the range. */
export const previousPeriod = (r: AnalyticsRange): AnalyticsRange => ({
  from: new Date(2 * r.from.getTime() - r.to.getTime()),
  to: r.from,
  timeZone: r.timeZone,
});

/** Local dates of every day the range touches, in order (empty days included by the caller). */
export function daysOf(r: AnalyticsRange): string[] {
  const out: string[] = [];
  const last = localDate(new Date(r.to.getTime() - 1), r.timeZone);
  let day = localDate(r.from, r.timeZone);
  while (day <= last) {
    out.push(day);
    day = nextDate(day);
  }
  return out;
}

/** Whether every offset of the zone within the range is a whole number of hours (hourly rollups then apply). */
export function wholeHourZone(r: AnalyticsRange): boolean {
  if (r.timeZone === 'UTC') return true;
  for (let t = r.from.getTime(); t <= r.to.getTime(); t += DAY_MS) if (zoneOffsetMinutes(new Date(t), r.timeZone) % 60 !== 0) return false;
  return zoneOffsetMinutes(r.to, r.timeZone) % 60 === 0;
}

export type Trend = 'up' | 'down' | 'stable';

export interface TrendMetric {
  value: number;
  trend: Trend;
  /** Percent change against the previous period, two decimals. */
  change: number;
}

/** Changes within ±1 % are `stable`. */
export const STABLE_WITHIN_PERCENT = 1;

/**
 * change = (current - previous) / previous * 100, rounded to two decimals. With a previous value of 0 the
 * change is 100 when the current value is positive and 0 when it is 0 too.
 */
export function trendOf(current: number, previous: number): TrendMetric {
  const change = previous === 0 ? (current > 0 ? 100 : 0) : ((current - previous) / Math.abs(previous)) * 100;
  const rounded = Math.round(change * 100) / 100;
  const trend: Trend = Math.abs(rounded) <= STABLE_WITHIN_PERCENT ? 'stable' : rounded > 0 ? 'up' : 'down';
  return { value: current, trend, change: rounded };
}
