import type { IngestionContext } from '../knowledge/ingestion-steps';
import type { GraphStore } from '../ports/graph-store';
import { type ExtractionModels, graphExtractionStep, type GraphStepDeps } from './extraction-step';
import { offlineGraphExtractor } from './offline-extractor';

const chunks = [{ index: 0, content: 'Ada Lovelace worked with Charles Babbage on the Analytical Engine in London.', start: 0, end: 78 }];
const contextWith = (settings: Record<string, unknown>) =>
  ({
    document: { id: 'd1', organizationId: 'o1', knowledgeBaseId: 'k1', title: 'Engines' },
    knowledgeBase: { settings },
    chunks,
    prepared: new Map(),
  }) as unknown as IngestionContext;

function stepWith(models?: ExtractionModels) {
  const deps = {
    graph: { getPinned: async () => [] } as unknown as GraphStore,
    extractor: offlineGraphExtractor,
    billing: {} as GraphStepDeps['billing'],
    costUsd: () => 0,
    models,
  };
  return graphExtractionStep(deps);
}

describe('graph extraction started early (while the chunks are embedded and stored)', () => {
  it('starts the offline extraction once the chunks are made', async () => {
    const step = stepWith();
    expect(step.prepare?.after).toBe('chunk');
    const early = await step.prepare!.start(contextWith({}));
    expect(early).toEqual(await offlineGraphExtractor.extract({ documentTitle: 'Engines', chunks, pinned: [] }));
  });

  it('starts nothing for a knowledge base without graph extraction, nor for a billed model', async () => {
    const models: ExtractionModels = {
      defaultModel: 'openai/gpt-4o-mini',
      extractorFor: () => {
        throw new Error('a model extraction must not start before the document is stored');
      },
      priceFor: async () => () => 0,
    };
    expect(stepWith().prepare!.start(contextWith({ graphExtraction: false }))).toBeNull();
    expect(stepWith(models).prepare!.start(contextWith({}))).toBeNull();
    // a knowledge base that asks for the offline extractor gets it early, whatever the deployment's model
    await expect(stepWith(models).prepare!.start(contextWith({ graphExtractionModel: 'offline' }))).resolves.toMatchObject({
      entities: expect.any(Array),
    });
  });
});
