import { checkVariableNamespaces, renderTemplate, templateVariables } from './template';

const codeOf = (fn: () => unknown) => {
  try {
    fn();
    return null;
  } catch (e) {
    return e as { code: string; details: { variable: string } };
  }
};

describe('template variables', () => {
  it('finds {{namespace.name}} variables, spaces and dotted names included', () => {
    expect(
      templateVariables('Hi {{user.name}}, {{ org.name }} and {{contact.address.city}}; {{bare}} is not one').map(
        (v) => `${v.namespace}:${v.name}`,
      ),
    ).toEqual(['user:name', 'org:name', 'contact:address.city']);
  });

  it('allows agent, org, user, conversation and contact everywhere', () => {
    const text = '{{agent.name}} {{org.name}} {{user.name}} {{conversation.id}} {{contact.email}}';
    for (const type of ['system', 'guardrail', 'welcome', 'persona', 'response_style', 'fallback', 'custom_tool_instructions'] as const) {
      expect(codeOf(() => checkVariableNamespaces(type, [text, null]))).toBeNull();
    }
  });

  it('allows tool only inside custom_tool_instructions', () => {
    expect(codeOf(() => checkVariableNamespaces('custom_tool_instructions', ['Use {{tool.name}}']))).toBeNull();
    const e = codeOf(() => checkVariableNamespaces('system', ['ok {{user.name}}', 'Use {{tool.name}}']));
    expect(e?.code).toBe('INVALID_VARIABLE_NAMESPACE');
    expect(e?.details.variable).toBe('{{tool.name}}');
  });

  it('refuses unknown namespaces and names the variable', () => {
    const e = codeOf(() => checkVariableNamespaces('welcome', [null, 'Hello {{secrets.apiKey}}']));
    expect(e?.code).toBe('INVALID_VARIABLE_NAMESPACE');
    expect(e?.details.variable).toBe('{{secrets.apiKey}}');
  });

  it('renders values by namespace; missing values become empty', () => {
    expect(
      renderTemplate('Hi {{user.name}} from {{org.name}} ({{contact.address.city}}){{user.missing}} {{bare}}', {
        user: { name: 'Ada' },
        org: { name: 'Acme' },
        contact: { address: { city: 'Paris' } },
      }),
    ).toBe('Hi Ada from Acme (Paris) {{bare}}');
    expect(renderTemplate('{{user.n}}', { user: { n: 3 } })).toBe('3');
  });
});
