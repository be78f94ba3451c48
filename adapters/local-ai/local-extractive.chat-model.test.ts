import type { ChatRequest } from '../../core/ports/chat-model';
import { estimateTokens } from '../../core/shared/token-estimate';
import { chatModelConformance } from '../../test/conformance/chat-model.conformance';
import { NO_ANSWER_TEXT, splitSentences } from './extractive-answer';
import { LocalChatModel } from './local-extractive.chat-model';

const context = [
  {
    content:
      '# Account help\nOur office is closed on public holidays. To reset your password, open Settings and choose Security.\n' +
      'Then click Reset password and follow the link we e-mail you.',
    documentTitle: 'Help centre',
  },
  {
    content:
      'Refunds for annual plans are processed within 14 days. Monthly plans are not refunded.\n\nThe password reset link expires after 24 hours.',
  },
];

const ask = (question: string, extra: Partial<ChatRequest> = {}): ChatRequest => ({
  model: 'local/extractive',
  messages: [
    { role: 'system', content: 'You are a helpful assistant.' },
    { role: 'user', content: question },
  ],
  context,
  ...extra,
});

chatModelConformance(
  'local extractive',
  () => ({
    model: new LocalChatModel(),
    modelId: 'local/extractive',
    foreignModelIds: ['openai/gpt-4o-mini', 'cohere/command-r'],
    request: { context: [{ content: 'Refunds for annual plans are processed within fourteen days of the request.' }] },
  }),
  { remote: false },
);

describe('LocalChatModel', () => {
  const model = new LocalChatModel();

  it('answers from the relevant sentences, in their original order', async () => {
    const completion = await model.complete(ask('Can I get a refund on an annual plan?'));
    expect(completion.text).toBe('Refunds for annual plans are processed within 14 days.');
    expect(completion.finishReason).toBe('stop');

    const password = await model.complete(ask('How do I reset my password?'));
    expect(password.text).toContain('To reset your password, open Settings and choose Security.');
    expect(password.text).not.toContain('office');
    expect(password.text).not.toContain('Refunds');
    expect(password.text.indexOf('To reset')).toBeLessThan(password.text.indexOf('expires'));
  });

  it('deduplicates repeated sentences across chunks', async () => {
    const dup = [...context, { content: 'Refunds for annual plans are processed within 14 days!' }];
    const completion = await model.complete(ask('annual plan refunds', { context: dup }));
    expect(completion.text.match(/Refunds for annual plans/g)).toHaveLength(1);
  });

  it('says plainly when the knowledge base has no answer', async () => {
    expect((await model.complete(ask('What is the capital of France?'))).text).toBe(NO_ANSWER_TEXT);
    expect((await model.complete(ask('How do I reset my password?', { context: [] }))).text).toBe(NO_ANSWER_TEXT);
    expect((await model.complete(ask('How do I reset my password?', { context: undefined }))).text).toBe(NO_ANSWER_TEXT);
  });

  it('uses the previous question for a short follow-up', async () => {
    const completion = await model.complete({
      model: 'local/extractive',
      messages: [
        { role: 'user', content: 'How do refunds work?' },
        { role: 'assistant', content: 'Refunds for annual plans are processed within 14 days.' },
        { role: 'user', content: 'and monthly?' },
      ],
      context,
    });
    expect(completion.text).toBe('Monthly plans are not refunded.');
  });

  it('estimates usage from all messages and context (prompt) and the answer (completion)', async () => {
    const request = ask('Can I get a refund on an annual plan?');
    const completion = await model.complete(request);
    const prompt =
      request.messages.reduce((n, m) => n + estimateTokens(m.content), 0) + context.reduce((n, c) => n + estimateTokens(c.content), 0);
    expect(completion.usage).toEqual({
      promptTokens: prompt,
      completionTokens: estimateTokens(completion.text),
      totalTokens: prompt + estimateTokens(completion.text),
    });
  });

  it('cuts the answer at maxTokens with finishReason length', async () => {
    const completion = await model.complete(ask('How do I reset my password?', { maxTokens: 5 }));
    expect(completion.finishReason).toBe('length');
    expect(completion.usage.completionTokens).toBeLessThanOrEqual(5);
    expect(completion.text.length).toBeGreaterThan(0);
  });

  it('rejects model ids it does not serve', async () => {
    await expect(model.complete(ask('x', { model: 'openai/gpt-4o' }))).rejects.toMatchObject({ code: 'VALIDATION' });
  });
});

describe('splitSentences', () => {
  it('joins wrapped lines, splits sentences, drops headings and list markers', () => {
    expect(splitSentences('# Title\nThis line is\nwrapped in a PDF. Second sentence here!\n- First item of a list\n- Second item')).toEqual(
      ['This line is wrapped in a PDF.', 'Second sentence here!', 'First item of a list', 'Second item'],
    );
  });
});
