import { chatModelConformance } from '../../test/conformance/chat-model.conformance';
import { LocalChatModel } from '../local-ai/local-extractive.chat-model';
import { tracedChatModel } from './traced-chat-model';

// The tracing wrapper must stay a ChatModel like the one it wraps (spans themselves: test/observability).
chatModelConformance(
  'local extractive, traced',
  () => ({
    model: tracedChatModel(new LocalChatModel()),
    modelId: 'local/extractive',
    foreignModelIds: ['openai/gpt-4o-mini', 'cohere/command-r'],
    request: { context: [{ content: 'Refunds for annual plans are processed within fourteen days of the request.' }] },
  }),
  { remote: false },
);

describe('tracedChatModel', () => {
  it('keeps the wrapped model’s id and other members', () => {
    const inner = new LocalChatModel();
    const traced = tracedChatModel(inner);
    expect(traced.id).toBe(inner.id);
    expect(traced.supports('local/extractive')).toBe(true);
    expect(traced.supports('openai/gpt-4o')).toBe(false);
  });
});
