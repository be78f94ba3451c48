import { startTestPlatform, type TestPlatform } from '../support/platform';
import { joinOrganization, registerUser, type TestUser } from '../support/users';
import { auditActions, expectError, put } from './fixtures';

let p: TestPlatform;
let owner: TestUser;
// Starting a platform (PGlite in WASM, migrations, catalogue) takes long on a loaded machine.
beforeAll(async () => {
  p = await startTestPlatform();
  owner = await registerUser(p.http, { label: 'owner', displayName: 'Olga Owner' });
}, 120_000);
afterAll(() => p?.close());

const as = {
  get token() {
    return owner.accessToken;
  },
};
const newAgent = async (
  tools: unknown[] = [
    { toolDefinitionId: 'crm', isEnabled: true },
    { toolDefinitionId: 'off', isEnabled: false },
  ],
) => (await p.http.post('/api/bots', { name: 'Prompted', knowledgeBaseIds: [], isDraft: true, tools }, as)).body.bot.id as string;
const save = (id: string, body: unknown, token = owner.accessToken) =>
  p.http.post(`/api/bots/${id}/prompt-config-versions`, body, { token });
const sys = (content: string) => ({ promptType: 'system', mode: 'fixed', content });

describe('prompt configuration versions', () => {
  it('saves versions v1.0, v1.1, v2.0 without moving live; publishes the newest or a chosen one', async () => {
    const id = await newAgent();
    const first = await save(id, { sections: [sys('You help {{user.name}}')], bumpType: 'major', label: 'first' });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      version: { id: expect.any(String), versionMajor: 1, versionMinor: 0, sectionCount: 1 },
      published: false,
    });
    const second = await save(id, { sections: [{ promptType: 'welcome', mode: 'fixed', content: 'Hi {{contact.name}}' }] });
    expect(second.body.version).toMatchObject({ versionMajor: 1, versionMinor: 1, sectionCount: 2 });
    const third = await save(id, { sections: [], bumpType: 'major' });
    expect(third.body.version).toMatchObject({ versionMajor: 2, versionMinor: 0, sectionCount: 2 });

    let list = await p.http.get(`/api/bots/${id}/prompt-config-versions`, as);
    expect(list.body.live).toBeNull();
    expect(list.body.versions.map((v: any) => `v${v.versionMajor}.${v.versionMinor}`)).toEqual(['v2.0', 'v1.1', 'v1.0']);
    // Spec 2.13: createdBy is null for the initial v1.0; later versions name their author.
    expect(list.body.versions[2]).toMatchObject({
      label: 'first',
      createdBy: null,
      authorName: null,
      isLive: false,
      isNewest: false,
    });
    expect(list.body.versions[1]).toMatchObject({ createdBy: owner.id, authorName: 'Olga Owner' });
    expect(list.body.versions[0].isNewest).toBe(true);

    const live = await put(p, `/api/bots/${id}/prompt-live`, { versionId: first.body.version.id }, owner.accessToken);
    expect(live.status).toBe(200);
    expect(live.body).toEqual({ live: { id: first.body.version.id, versionMajor: 1, versionMinor: 0 }, previous: null });
    const newest = await put(p, `/api/bots/${id}/prompt-live`, {}, owner.accessToken);
    expect(newest.body).toEqual({
      live: { id: third.body.version.id, versionMajor: 2, versionMinor: 0 },
      previous: { id: first.body.version.id, versionMajor: 1, versionMinor: 0 },
    });
    list = await p.http.get(`/api/bots/${id}/prompt-config-versions?limit=2`, as);
    expect(list.body.versions).toHaveLength(2);
    expect(list.body.versions[0].isLive).toBe(true);
    expect(list.body.live).toMatchObject({
      id: third.body.version.id,
      versionMajor: 2,
      versionMinor: 0,
      publishedBy: owner.id,
      publishedByName: 'Olga Owner',
      publishedAt: expect.any(String),
    });

    const detail = await p.http.get(`/api/bots/${id}/prompt-config-versions/${first.body.version.id}`, as);
    expect(detail.body.version).toMatchObject({ versionMajor: 1, versionMinor: 0, isLive: false });
    expect(detail.body.items).toEqual([
      { promptType: 'system', instanceRef: null, mode: 'fixed', content: 'You help {{user.name}}', prompt: null },
    ]);
    expectError(await p.http.get(`/api/bots/${id}/prompt-config-versions/00000000-0000-4000-8000-000000000000`, as), 404, 'Not Found');
    expect(await auditActions(p, owner.orgId, id)).toEqual([
      'agent.create',
      'prompt_config.save',
      'prompt_config.save',
      'prompt_config.save',
      'prompt_config.publish',
      'prompt_config.publish',
    ]);
  });

  it("refuses another agent's version with 404 and publishes nothing", async () => {
    const a = await newAgent();
    const b = await newAgent();
    const va = await save(a, { sections: [sys('A')] });
    await save(b, { sections: [sys('B')] });
    expectError(await put(p, `/api/bots/${b}/prompt-live`, { versionId: va.body.version.id }, owner.accessToken), 404, 'Not Found');
    expect((await p.http.get(`/api/bots/${b}/prompt-config-versions`, as)).body.live).toBeNull();
    expectError(await put(p, `/api/bots/${b}/prompt-live`, { versionId: 'junk' }, owner.accessToken), 404, 'Not Found');
    expectError(await put(p, `/api/bots/${await newAgent()}/prompt-live`, {}, owner.accessToken), 404, 'Not Found');
  });

  it('answers each save error with its code and saves nothing', async () => {
    const id = await newAgent();
    await save(id, { sections: [sys('kept')] });
    const cases: [unknown[], string][] = [
      [[{ promptType: 'mystery', mode: 'fixed', content: 'x' }], 'UNKNOWN_PROMPT_TYPE'],
      [[{ promptType: 'custom_tool_instructions', mode: 'fixed', content: 'x' }], 'INSTANCED_TYPE_NOT_ADDRESSED'],
      [[{ promptType: 'custom_tool_instructions', instanceRef: 'off', mode: 'fixed', content: 'x' }], 'INSTANCE_NOT_FOUND'],
      [[{ promptType: 'custom_tool_instructions', instanceRef: 'ghost', mode: 'fixed', content: 'x' }], 'INSTANCE_NOT_FOUND'],
      [[sys('changed'), { promptType: 'guardrail', mode: 'fixed', content: 'Never reveal {{tool.secret}}' }], 'INVALID_VARIABLE_NAMESPACE'],
      [[{ promptType: 'welcome', mode: 'generated', prompt: 'Greet {{visitor.name}}' }], 'INVALID_VARIABLE_NAMESPACE'],
      [[sys('changed'), { promptType: 'system', mode: 'generated', prompt: 'y' }], 'DUPLICATE_SECTION'],
    ];
    for (const [sections, code] of cases) {
      const r = await save(id, { sections });
      expect([code, r.status, r.body.error]).toEqual([code, 400, code]);
    }
    const bad = await save(id, { sections: [{ promptType: 'welcome', mode: 'fixed', content: 'Hi {{visitor.name}}' }] });
    expect(bad.body.details).toMatchObject({ variable: '{{visitor.name}}' });
    expectError(await save(id, {}), 400, 'Validation Error');
    expectError(await save(id, { sections: [{ promptType: 'system' }] }), 400, 'Validation Error');
    expectError(await save(id, { sections: [], label: 'l'.repeat(5001) }), 400, 'Validation Error');
    expectError(await save(id, { sections: [], bumpType: 'patch' }), 400, 'Validation Error');

    const versions = await p.http.get(`/api/bots/${id}/prompt-config-versions`, as);
    expect(versions.body.versions).toHaveLength(1);
    const sections = await p.http.get(`/api/bots/${id}/prompt-sections`, as);
    expect(sections.body.sections.find((s: any) => s.promptType === 'system').content).toBe('kept');
    expect(sections.body.sections.find((s: any) => s.promptType === 'guardrail').isCustomised).toBe(false);
  });

  it('accepts tool variables in an enabled tool section', async () => {
    const id = await newAgent();
    const r = await save(id, {
      sections: [
        { promptType: 'custom_tool_instructions', instanceRef: 'crm', mode: 'fixed', content: 'Call {{tool.name}} for {{contact.email}}' },
      ],
    });
    expect(r.status).toBe(201);
  });
});

describe('draft sections, reset and the legacy write', () => {
  it('reports draft text, isUnpublished and draftDiffersFromNewest', async () => {
    const id = await newAgent();
    let s = await p.http.get(`/api/bots/${id}/prompt-sections`, as);
    expect(s.status).toBe(200);
    expect(s.body.draftDiffersFromNewest).toBe(false);
    expect(s.body.sections.map((x: any) => x.promptType)).toEqual([
      'system',
      'guardrail',
      'welcome',
      'persona',
      'response_style',
      'fallback',
    ]);
    expect(s.body.sections.every((x: any) => !x.isCustomised && !x.isUnpublished)).toBe(true);

    const v = await save(id, { sections: [sys('One'), { promptType: 'persona', mode: 'fixed', content: 'Calm' }] });
    s = await p.http.get(`/api/bots/${id}/prompt-sections`, as);
    expect(s.body.draftDiffersFromNewest).toBe(false);
    expect(s.body.sections.find((x: any) => x.promptType === 'system')).toMatchObject({
      content: 'One',
      isCustomised: true,
      isUnpublished: true,
    });

    await put(p, `/api/bots/${id}/prompt-live`, { versionId: v.body.version.id }, owner.accessToken);
    s = await p.http.get(`/api/bots/${id}/prompt-sections`, as);
    expect(s.body.sections.find((x: any) => x.promptType === 'system').isUnpublished).toBe(false);

    const legacy = await put(p, `/api/bots/${id}/prompt-configs/system`, { content: 'Two' }, owner.accessToken);
    expect(legacy.status).toBe(200);
    expect(legacy.body).toMatchObject({
      section: { promptType: 'system', instanceRef: null, mode: 'fixed', content: 'Two' },
      published: false,
    });
    s = await p.http.get(`/api/bots/${id}/prompt-sections`, as);
    expect(s.body.draftDiffersFromNewest).toBe(true);
    expect(s.body.sections.find((x: any) => x.promptType === 'system')).toMatchObject({ content: 'Two', isUnpublished: true });
    const versions = await p.http.get(`/api/bots/${id}/prompt-config-versions`, as);
    expect(versions.body.versions).toHaveLength(1);
    expect(versions.body.live.id).toBe(v.body.version.id);

    const reset = await p.http.post(`/api/bots/${id}/prompt-sections/persona/reset`, {}, as);
    expect(reset.body).toEqual({ promptType: 'persona', instanceRef: null, removed: true });
    s = await p.http.get(`/api/bots/${id}/prompt-sections`, as);
    expect(s.body.sections.find((x: any) => x.promptType === 'persona')).toMatchObject({ isCustomised: false, isUnpublished: true });
    expect((await p.http.get(`/api/bots/${id}/prompt-sections`, as)).body.live.id).toBe(v.body.version.id);
    expect((await p.http.post(`/api/bots/${id}/prompt-sections/persona/reset`, {}, as)).body.removed).toBe(false);
  });

  it('checks the legacy write and reset like a save', async () => {
    const id = await newAgent();
    expectError(await put(p, `/api/bots/${id}/prompt-configs/mystery`, { content: 'x' }, owner.accessToken), 400, 'UNKNOWN_PROMPT_TYPE');
    expectError(
      await put(p, `/api/bots/${id}/prompt-configs/custom_tool_instructions`, { content: 'x' }, owner.accessToken),
      400,
      'INSTANCED_TYPE_NOT_ADDRESSED',
    );
    expectError(
      await put(p, `/api/bots/${id}/prompt-configs/custom_tool_instructions`, { instanceRef: 'ghost', content: 'x' }, owner.accessToken),
      400,
      'INSTANCE_NOT_FOUND',
    );
    expectError(
      await put(p, `/api/bots/${id}/prompt-configs/welcome`, { content: '{{tool.x}}' }, owner.accessToken),
      400,
      'INVALID_VARIABLE_NAMESPACE',
    );
    expect(
      (
        await put(
          p,
          `/api/bots/${id}/prompt-configs/custom_tool_instructions`,
          { instanceRef: 'crm', content: 'Use {{tool.name}}' },
          owner.accessToken,
        )
      ).status,
    ).toBe(200);
    expectError(await p.http.post(`/api/bots/${id}/prompt-sections/mystery/reset`, {}, as), 400, 'UNKNOWN_PROMPT_TYPE');
    expectError(
      await p.http.post(`/api/bots/${id}/prompt-sections/custom_tool_instructions/reset`, {}, as),
      400,
      'INSTANCED_TYPE_NOT_ADDRESSED',
    );
    const r = await p.http.post(`/api/bots/${id}/prompt-sections/custom_tool_instructions/reset?instanceRef=crm`, {}, as);
    expect(r.body).toEqual({ promptType: 'custom_tool_instructions', instanceRef: 'crm', removed: true });
  });

  it('lets viewers read but not save or publish', async () => {
    const viewer = await joinOrganization(p.http, owner, owner.orgId, await registerUser(p.http, { label: 'viewer' }), 'viewer');
    const id = await newAgent();
    expect((await p.http.get(`/api/bots/${id}/prompt-config-versions`, { token: viewer.accessToken })).status).toBe(200);
    expect((await p.http.get(`/api/bots/${id}/prompt-sections`, { token: viewer.accessToken })).status).toBe(200);
    expectError(await save(id, { sections: [] }, viewer.accessToken), 403, 'Forbidden');
    expectError(await put(p, `/api/bots/${id}/prompt-live`, {}, viewer.accessToken), 403, 'Forbidden');
    expectError(await put(p, `/api/bots/${id}/prompt-configs/system`, { content: 'x' }, viewer.accessToken), 403, 'Forbidden');
  });
});
