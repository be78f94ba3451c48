import { DomainError } from '../shared/errors';

/** Which model ids a configured provider serves right now (in the app: the chat model router over CHAT_PROVIDERS). */
export interface ModelAvailability {
  serves(modelId: string): boolean;
}

/** Refuses, at write time, a model no configured provider serves: the next chat would fail otherwise. */
export function assertModelAvailable(availability: ModelAvailability | null | undefined, model: string): void {
  if (!availability || availability.serves(model)) return;
  throw new DomainError(
    'MODEL_NOT_AVAILABLE',
    `The model ${model} is not available on this platform: no configured provider serves it. Choose a model that GET /api/models lists with available: true, or configure its provider.`,
    { field: 'model', model },
  );
}
