/**
 * Model-backed analysis (spec 4.13, issue 13): when the build or the deployment names a chat model that is
 * not the offline provider, the model writes the agent's name, description, system prompt and starter
 * questions from a bounded digest of the scraped content. The reply is asked for as JSON-schema structured
 * output and validated anyway; a bad reply or a provider error falls back to the offline analysis with a
 * warning. Usage is billed whatever came back (free models cost 0).
 */
import { type BillingDeps, charge } from '../billing/billing';
import type { OptionsValidator } from '../plugin-contract/plugin-registry';
import type { ChatModel } from '../ports/chat-model';
import { parseStructuredReply } from '../shared/structured-reply';
import type { SourceItemContent } from '../sources/source-plugin';
import type { BuildAnalysis } from './build';

/** Characters of scraped content sent to the model. */
export const ANALYSIS_INPUT_CHARS = 8000;
const MAX_COMPLETION_TOKENS = 1500;

export const ANALYSIS_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'description', 'systemPrompt', 'starterQuestions'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 255 },
    description: { type: 'string', minLength: 1, maxLength: 2000 },
    systemPrompt: { type: 'string', minLength: 1, maxLength: 8000 },
    starterQuestions: { type: 'array', minItems: 2, maxItems: 6, items: { type: 'string', minLength: 1, maxLength: 300 } },
  },
} as const;

export interface AnalysisModels {
  /** PROVISIONING_ANALYSIS_MODEL: used when the build names no model; null: offline unless the build names one. */
  defaultModel: string | null;
  chat: ChatModel;
  /** ANALYSIS_SCHEMA compiled by the OptionsValidator port (ajv outside the core). */
  validate: ReturnType<OptionsValidator['compile']>;
  /** Provider cost (USD) of a usage of the model (0 for free models); refuses a paid model on an empty wallet. */
  priceFor(organizationId: string, model: string): Promise<(usage: { promptTokens: number; completionTokens: number }) => number>;
  billing: BillingDeps;
}

/** The model that analyses a build: the build's, else the deployment's; `local/...` and `offline` mean none. */
export function analysisModelOf(buildModel: string | null, defaultModel: string | null): string | null {
  const model = buildModel?.trim() || defaultModel || '';
  return model && model !== 'offline' && !model.startsWith('local/') ? model : null;
}

/** Titles, descriptions and captions, item by item, cut at ANALYSIS_INPUT_CHARS. */
export function analysisDigest(channelTitle: string, items: SourceItemContent[]): string {
  let digest = `Channel: ${channelTitle}\n`;
  for (const item of items) {
    digest += `\n## ${item.title}\n${item.text}\n`;
    if (digest.length >= ANALYSIS_INPUT_CHARS) break;
  }
  return digest.slice(0, ANALYSIS_INPUT_CHARS);
}

export interface ModelAnalysisInput {
  organizationId: string;
  buildId: string;
  model: string;
  channelTitle: string;
  platform: string;
  intent: string | null;
  items: SourceItemContent[];
}

/** The model's analysis, or null (with the reason) when the reply is unusable or the provider failed. */
export async function analyzeWithModel(
  m: AnalysisModels,
  input: ModelAnalysisInput,
): Promise<{ analysis: BuildAnalysis } | { analysis: null; reason: string }> {
  let text: string;
  try {
    const costOf = await m.priceFor(input.organizationId, input.model);
    const completion = await m.chat.complete({
      model: input.model,
      temperature: 0.2,
      maxTokens: MAX_COMPLETION_TOKENS,
      responseFormat: { type: 'json_schema', name: 'agent_analysis', schema: ANALYSIS_SCHEMA },
      messages: [
        {
          role: 'system',
          content:
            'You design a chat assistant for a content creator from their recent content. Reply with JSON only: ' +
            '{"name","description","systemPrompt","starterQuestions"} where starterQuestions has 2 to 6 questions a ' +
            'visitor would ask that the content answers. The system prompt tells the assistant to answer only from ' +
            `the creator's content.${input.intent ? ` The assistant's purpose: ${input.intent}.` : ''}`,
        },
        { role: 'user', content: `Platform: ${input.platform}\n${analysisDigest(input.channelTitle, input.items)}` },
      ],
    });
    // model calls cost what they cost, whatever came back
    const usage = completion.usage;
    await charge(m.billing, {
      organizationId: input.organizationId,
      kind: 'provisioning',
      model: input.model,
      promptTokens: usage.promptTokens,
      completionTokens: usage.completionTokens,
      providerCostUsd: costOf(usage),
      reference: { buildId: input.buildId },
    });
    text = completion.text;
  } catch (error) {
    return { analysis: null, reason: `the model call failed (${error instanceof Error ? error.message : String(error)})` };
  }
  const parsed = parseAnalysis(text, m.validate);
  return parsed ? { analysis: parsed } : { analysis: null, reason: 'the model reply was not a valid analysis' };
}

export function parseAnalysis(text: string, validate: AnalysisModels['validate']): BuildAnalysis | null {
  const checked = parseStructuredReply(text, validate);
  if (!checked) return null;
  const a = checked as unknown as BuildAnalysis;
  return { name: a.name.trim(), description: a.description.trim(), systemPrompt: a.systemPrompt, starterQuestions: a.starterQuestions };
}
