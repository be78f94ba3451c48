import 'uplot/dist/uPlot.min.css';

import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';

import type { DailyPoint } from '../../../sdk';
import { api } from '../api';
import { ErrorNotice, Field, Page, useLoad } from '../ui';

const day = (d: Date) => d.toISOString().slice(0, 10);

/** A daily series as a uPlot line chart; the table below it carries the same numbers for screen readers. */
function DailyChart({ points, series, label }: { points: DailyPoint[]; series: (keyof DailyPoint)[]; label: string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!box.current) return;
    const xs = points.map((p) => Date.parse(`${p.date}T00:00:00Z`) / 1000);
    const colours = ['#2563eb', '#db2777', '#059669'];
    const chart = new uPlot(
      {
        width: Math.min(box.current.clientWidth || 640, 900),
        height: 220,
        series: [{}, ...series.map((s, i) => ({ label: String(s), stroke: colours[i % colours.length], width: 2 }))],
        axes: [{}, {}],
      },
      [xs, ...series.map((s) => points.map((p) => Number(p[s])))],
      box.current,
    );
    return () => chart.destroy();
  }, [points, series]);
  return <div ref={box} role="img" aria-label={label} class="chart" />;
}

export function AnalyticsPage() {
  const [days, setDays] = useState(30);
  const orgId = api.organizationId!;
  const range = () => {
    const end = new Date();
    const start = new Date(end.getTime() - (days - 1) * 86_400_000);
    return { organizationId: orgId, startDate: day(start), endDate: day(end) };
  };
  const overview = useLoad(() => api.analyticsOverview(range()), [days]);
  const daily = useLoad(() => api.analyticsDaily(range()), [days]);
  const o = overview.data;
  return (
    <Page title="Analytics">
      <Field label="Period">
        <select value={String(days)} onChange={(e) => setDays(Number((e.currentTarget as HTMLSelectElement).value))}>
          <option value="7">Last 7 days</option>
          <option value="30">Last 30 days</option>
          <option value="90">Last 90 days</option>
        </select>
      </Field>
      <ErrorNotice error={overview.error ?? daily.error} />
      {o ? (
        <ul class="metrics">
          {(
            [
              ['Conversations', o.totalConversations, (v: number) => String(v)],
              ['Messages', o.totalMessages, (v: number) => String(v)],
              ['Tokens', o.totalTokens, (v: number) => String(v)],
              ['Cost', o.totalCost, (v: number) => `$${v.toFixed(4)}`],
              ['Avg. response', o.averageResponseTime, (v: number) => `${Math.round(v)} ms`],
            ] as const
          ).map(([name, m, fmt]) => (
            <li key={name} class="card">
              <span class="metric-name">{name}</span>
              <strong>{fmt(m.value)}</strong>
              <small>
                {m.trend === 'up' ? '▲' : m.trend === 'down' ? '▼' : '■'} {m.change}% vs previous period
              </small>
            </li>
          ))}
        </ul>
      ) : null}
      {daily.data ? (
        <>
          <h2>Conversations and messages per day</h2>
          <DailyChart points={daily.data} series={['conversations', 'messages']} label="Line chart of conversations and messages per day" />
          <h2>Tokens per day</h2>
          <DailyChart points={daily.data} series={['tokens']} label="Line chart of tokens per day" />
          <details>
            <summary>Daily figures as a table</summary>
            <table>
              <thead>
                <tr>
                  <th scope="col">Date</th>
                  <th scope="col">Conversations</th>
                  <th scope="col">Messages</th>
                  <th scope="col">Tokens</th>
                  <th scope="col">Cost</th>
                </tr>
              </thead>
              <tbody>
                {daily.data.map((p) => (
                  <tr key={p.date}>
                    <td>{p.date}</td>
                    <td>{p.conversations}</td>
                    <td>{p.messages}</td>
                    <td>{p.tokens}</td>
                    <td>{p.cost.toFixed(4)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </details>
        </>
      ) : null}
    </Page>
  );
}
