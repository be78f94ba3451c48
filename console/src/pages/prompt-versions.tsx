import { useState } from 'preact/hooks';

import type { PromptSection } from '../../../sdk';
import { api } from '../api';
import { diffLines } from '../diff';
import { ErrorNotice, Field, formatDate, formValues, useAction, useLoad } from '../ui';

const versionName = (v: { versionMajor: number; versionMinor: number }) => `v${v.versionMajor}.${v.versionMinor}`;
const sectionText = (items: PromptSection[]) =>
  items.map((s) => `[${s.promptType}${s.instanceRef ? `:${s.instanceRef}` : ''} · ${s.mode}]\n${s.content ?? s.prompt ?? ''}`).join('\n\n');

/** Prompt configuration versions (spec 4.3): save a version, compare two, move the live pointer. */
export function PromptVersions({ agentId }: { agentId: string }) {
  const list = useLoad(() => api.listPromptVersions(agentId), [agentId]);
  const [pair, setPair] = useState<{ from?: string; to?: string }>({});
  const diff = useLoad(async () => {
    if (!pair.from || !pair.to) return null;
    const [a, b] = await Promise.all([api.getPromptVersion(agentId, pair.from), api.getPromptVersion(agentId, pair.to)]);
    return diffLines(sectionText(a.items), sectionText(b.items));
  }, [agentId, pair.from, pair.to]);

  const save = useAction(async (v: Record<string, string>) => {
    const sections: PromptSection[] = [];
    if (v.system) sections.push({ promptType: 'system', mode: 'fixed', content: v.system });
    if (v.welcome) sections.push({ promptType: 'welcome', mode: 'fixed', content: v.welcome });
    await api.savePromptVersion(agentId, { sections, bumpType: v.bumpType === 'major' ? 'major' : 'minor', label: v.label || undefined });
    list.reload();
  });
  const publish = useAction(async (versionId: string) => {
    await api.publishPromptVersion(agentId, versionId);
    list.reload();
  });

  const versions = list.data?.versions ?? [];
  return (
    <section aria-labelledby="prompt-h">
      <h2 id="prompt-h">Prompt configuration</h2>
      <p>
        Live version: <strong data-testid="prompt-live">{list.data?.live ? versionName(list.data.live) : 'none published'}</strong>
      </p>
      <form class="card" onSubmit={(e) => void save.run(formValues(e))}>
        <Field label="System prompt section">
          <textarea name="system" rows={4} />
        </Field>
        <Field label="Welcome message (fixed)">
          <input name="welcome" maxLength={10000} />
        </Field>
        <Field label="Version label">
          <input name="label" maxLength={5000} />
        </Field>
        <Field label="Version bump">
          <select name="bumpType">
            <option value="minor">Minor (vX.Y+1)</option>
            <option value="major">Major (vX+1.0)</option>
          </select>
        </Field>
        <ErrorNotice error={save.error} />
        <button type="submit" disabled={save.busy}>
          Save as new version
        </button>
      </form>
      <ErrorNotice error={list.error ?? publish.error} />
      <table>
        <caption>Versions, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Version</th>
            <th scope="col">Label</th>
            <th scope="col">Author</th>
            <th scope="col">Created</th>
            <th scope="col">Live</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {versions.map((v) => (
            <tr key={v.id}>
              <td>{versionName(v)}</td>
              <td>{v.label ?? ''}</td>
              <td>{v.authorName ?? '—'}</td>
              <td>{formatDate(v.createdAt)}</td>
              <td>{v.isLive ? <span class="badge published">live</span> : ''}</td>
              <td>
                {!v.isLive ? (
                  <button type="button" disabled={publish.busy} onClick={() => void publish.run(v.id)}>
                    Make {versionName(v)} live
                  </button>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {versions.length > 1 ? (
        <div class="card">
          <h3>Compare versions</h3>
          <div class="row">
            <Field label="From">
              <select value={pair.from ?? ''} onChange={(e) => setPair({ ...pair, from: (e.currentTarget as HTMLSelectElement).value })}>
                <option value="">Choose…</option>
                {versions.map((v) => (
                  <option key={v.id} value={v.id}>
                    {versionName(v)}
                  </option>
                ))}
              </select>
            </Field>
            <Field label="To">
              <select value={pair.to ?? ''} onChange={(e) => setPair({ ...pair, to: (e.currentTarget as HTMLSelectElement).value })}>
                <option value="">Choose…</option>
                {versions.map((v) => (
                  <option key={v.id} value={v.id}>
                    {versionName(v)}
                  </option>
                ))}
              </select>
            </Field>
          </div>
          <ErrorNotice error={diff.error} />
          {diff.data ? (
            <pre class="diff" aria-label="Differences between the two versions">
              {diff.data.map((l, i) => (
                <div key={i} class={l.kind}>
                  {l.kind === 'added' ? '+ ' : l.kind === 'removed' ? '- ' : '  '}
                  {l.text}
                </div>
              ))}
            </pre>
          ) : null}
        </div>
      ) : null}
    </section>
  );
}
