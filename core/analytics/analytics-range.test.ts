import {
  daysOf,
  localDate,
  parseRange,
  previousPeriod,
  startOfLocalDay,
  trendOf,
  wholeHourZone,
  zoneOffsetMinutes,
} from './analytics-range';

describe('analytics ranges', () => {
  it('reads date-only bounds as whole days in UTC or in the given zone', () => {
    const utc = parseRange({ startDate: '2026-03-01', endDate: '2026-03-03' });
    expect([utc.from.toISOString(), utc.to.toISOString()]).toEqual(['2026-03-01T00:00:00.000Z', '2026-03-04T00:00:00.000Z']);
    const paris = parseRange({ startDate: '2026-03-01', endDate: '2026-03-01', timezone: 'Europe/Paris' });
    expect([paris.from.toISOString(), paris.to.toISOString()]).toEqual(['2026-02-28T23:00:00.000Z', '2026-03-01T23:00:00.000Z']);
    const dt = parseRange({ startDate: '2026-03-01T10:00:00Z', endDate: '2026-03-01T12:00:00Z' });
    expect(dt.to.getTime() - dt.from.getTime()).toBe(2 * 3_600_000);
  });

  it('handles a daylight-saving change inside the range', () => {
    // Paris moves to UTC+2 on 2026-03-29: that local day has 23 hours.
    expect(startOfLocalDay('2026-03-29', 'Europe/Paris').toISOString()).toBe('2026-03-28T23:00:00.000Z');
    expect(startOfLocalDay('2026-03-30', 'Europe/Paris').toISOString()).toBe('2026-03-29T22:00:00.000Z');
    const r = parseRange({ startDate: '2026-03-28', endDate: '2026-03-30', timezone: 'Europe/Paris' });
    expect(daysOf(r)).toEqual(['2026-03-28', '2026-03-29', '2026-03-30']);
    expect(zoneOffsetMinutes(new Date('2026-03-30T12:00:00Z'), 'Europe/Paris')).toBe(120);
    expect(localDate(new Date('2026-03-29T22:30:00Z'), 'Europe/Paris')).toBe('2026-03-30');
  });

  it('refuses missing, invalid and inverted bounds and unknown zones', () => {
    expect(() => parseRange({ endDate: '2026-03-01' })).toThrow(/startDate is required/);
    expect(() => parseRange({ startDate: '2026-03-01' })).toThrow(/endDate is required/);
    expect(() => parseRange({ startDate: 'yesterday', endDate: '2026-03-01' })).toThrow(/startDate/);
    expect(() => parseRange({ startDate: '2026-03-05', endDate: '2026-03-01' })).toThrow(/after startDate/);
    expect(() => parseRange({ startDate: '2026-03-01', endDate: '2026-03-02', timezone: 'Nowhere/Land' })).toThrow(/Unknown time zone/);
    expect(() => parseRange({ startDate: '2020-01-01', endDate: '2026-03-02' })).toThrow(/at most/);
  });

  it('the previous period has the same length and ends where the range starts', () => {
    const r = parseRange({ startDate: '2026-03-08', endDate: '2026-03-14' });
    const prev = previousPeriod(r);
    expect([prev.from.toISOString(), prev.to.toISOString()]).toEqual(['2026-03-01T00:00:00.000Z', '2026-03-08T00:00:00.000Z']);
  });

  it('knows zones whose offset is not whole hours', () => {
    expect(wholeHourZone(parseRange({ startDate: '2026-03-01', endDate: '2026-03-02', timezone: 'Asia/Kolkata' }))).toBe(false);
    expect(wholeHourZone(parseRange({ startDate: '2026-03-01', endDate: '2026-04-02', timezone: 'America/New_York' }))).toBe(true);
  });
});

describe('trends', () => {
  it('change in percent against the previous value, two decimals; stable within 1 %', () => {
    expect(trendOf(150, 100)).toEqual({ value: 150, trend: 'up', change: 50 });
    expect(trendOf(50, 200)).toEqual({ value: 50, trend: 'down', change: -75 });
    expect(trendOf(1005, 1000)).toEqual({ value: 1005, trend: 'stable', change: 0.5 });
    expect(trendOf(2, 3)).toEqual({ value: 2, trend: 'down', change: -33.33 });
  });
  it('a previous value of 0 gives 100 (something now) or 0 (nothing either time)', () => {
    expect(trendOf(7, 0)).toEqual({ value: 7, trend: 'up', change: 100 });
    expect(trendOf(0, 0)).toEqual({ value: 0, trend: 'stable', change: 0 });
    expect(trendOf(0, 4)).toEqual({ value: 0, trend: 'down', change: -100 });
  });
});
