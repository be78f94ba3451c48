import { sameSections, validateSections } from './prompt-sections';

const tools = [
  { toolDefinitionId: 'crm', isEnabled: true },
  { toolDefinitionId: 'old', isEnabled: false },
];
const codeOf = (fn: () => unknown) => {
  try {
    fn();
    return 'OK';
  } catch (e) {
    return (e as { code: string }).code;
  }
};

describe('prompt section validation', () => {
  it('normalises valid sections', () => {
    expect(
      validateSections(
        [
          { promptType: 'system', mode: 'fixed', content: 'Be nice' },
          { promptType: 'custom_tool_instructions', instanceRef: 'crm', mode: 'generated', prompt: 'Use {{tool.name}}' },
        ],
        tools,
      ),
    ).toEqual([
      { promptType: 'system', instanceRef: null, mode: 'fixed', content: 'Be nice', prompt: null },
      { promptType: 'custom_tool_instructions', instanceRef: 'crm', mode: 'generated', content: null, prompt: 'Use {{tool.name}}' },
    ]);
  });

  it('reports each save error with its code', () => {
    expect(codeOf(() => validateSections([{ promptType: 'nope', mode: 'fixed' }], tools))).toBe('UNKNOWN_PROMPT_TYPE');
    expect(codeOf(() => validateSections([{ promptType: 'custom_tool_instructions', mode: 'fixed', content: 'x' }], tools))).toBe(
      'INSTANCED_TYPE_NOT_ADDRESSED',
    );
    expect(codeOf(() => validateSections([{ promptType: 'custom_tool_instructions', instanceRef: 'missing', mode: 'fixed' }], tools))).toBe(
      'INSTANCE_NOT_FOUND',
    );
    expect(codeOf(() => validateSections([{ promptType: 'custom_tool_instructions', instanceRef: 'old', mode: 'fixed' }], tools))).toBe(
      'INSTANCE_NOT_FOUND',
    );
    expect(codeOf(() => validateSections([{ promptType: 'welcome', mode: 'fixed', content: '{{tool.x}}' }], tools))).toBe(
      'INVALID_VARIABLE_NAMESPACE',
    );
    expect(
      codeOf(() =>
        validateSections(
          [
            { promptType: 'system', mode: 'fixed' },
            { promptType: 'system', mode: 'generated' },
          ],
          tools,
        ),
      ),
    ).toBe('DUPLICATE_SECTION');
    expect(codeOf(() => validateSections([{ promptType: 'system', instanceRef: 'crm', mode: 'fixed' }], tools))).toBe('VALIDATION');
  });

  it('allows one section per tool instance', () => {
    const two = [
      { toolDefinitionId: 'a', isEnabled: true },
      { toolDefinitionId: 'b', isEnabled: true },
    ];
    expect(
      validateSections(
        [
          { promptType: 'custom_tool_instructions', instanceRef: 'a', mode: 'fixed' },
          { promptType: 'custom_tool_instructions', instanceRef: 'b', mode: 'fixed' },
        ],
        two,
      ),
    ).toHaveLength(2);
  });

  it('compares section sets regardless of order', () => {
    const a = { promptType: 'system' as const, instanceRef: null, mode: 'fixed' as const, content: 'x', prompt: null };
    const b = { promptType: 'welcome' as const, instanceRef: null, mode: 'fixed' as const, content: 'hi', prompt: null };
    expect(sameSections([a, b], [b, a])).toBe(true);
    expect(sameSections([a], [{ ...a, content: 'y' }])).toBe(false);
    expect(sameSections([], [a])).toBe(false);
  });
});
