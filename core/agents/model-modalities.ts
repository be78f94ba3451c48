import type { Repositories } from '../ports/repositories';

// Model ids whose models take images as well as text, for models the catalogue does not list.
const MULTIMODAL = [
  /gpt-4o/,
  /gpt-4\.1/,
  /gpt-4-turbo/,
  /gpt-5/,
  /\bo[134]\b/,
  /claude-(3|sonnet|opus|haiku)/,
  /gemini/,
  /vision/,
  /llava/,
  /pixtral/,
  /-vl\b/,
];

/** Best guess from the model id alone: text, plus image for families known to be multimodal. */
export function guessInputModalities(modelId: string): string[] {
  const name = modelId.toLowerCase();
  return MULTIMODAL.some((re) => re.test(name)) ? ['text', 'image'] : ['text'];
}

/**
 * The input types the agent's model accepts (get-agent `modelInputModalities`): the model catalogue's
 * capabilities when it lists the model, else the guess above. The one place to change when the catalogue
 * learns more.
 */
export async function modelInputModalities(repos: Repositories, modelId: string): Promise<string[]> {
  const model = await repos.models.findById(modelId).catch(() => null);
  const listed = model?.capabilities?.inputModalities;
  return listed && listed.length ? [...listed] : guessInputModalities(modelId);
}
