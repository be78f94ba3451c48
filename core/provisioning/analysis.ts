/**
 * Offline analysis (no chat model configured): the agent's name, description, system prompt and starter
 * questions are extracted deterministically from the channel title and the items' titles and texts. The same
 * content always gives the same agent.
 */
import type { SourceItemContent } from '../sources/source-plugin';
import type { BuildAnalysis } from './build';

const STOP = new Set(
  'a an and are as at be by for from has have how i in is it its make making my of on or our the this to we what when why with you your at home guide step'.split(
    ' ',
  ),
);

/** The most frequent meaningful words of the titles (ties: first seen). */
export function topics(items: SourceItemContent[], count = 4): string[] {
  const freq = new Map<string, number>();
  for (const item of items)
    for (const word of item.title.toLowerCase().match(/[a-z][a-z'-]{2,}/g) ?? [])
      if (!STOP.has(word)) freq.set(word, (freq.get(word) ?? 0) + 1);
  return [...freq.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([w]) => w);
}

const INTENT_GOALS: Record<string, string> = {
  support: 'Help viewers solve problems using what the creator has published.',
  sales: 'Recommend the creator’s products and content that fit what the visitor is looking for.',
  community: 'Engage the creator’s community in friendly conversation about their content.',
};

export function analyzeOffline(input: {
  channelTitle: string;
  platform: string;
  intent: string | null;
  items: SourceItemContent[];
}): BuildAnalysis {
  const title = input.channelTitle.trim() || 'Channel';
  const themes = topics(input.items);
  const name = `${title} Assistant`.slice(0, 255);
  const about = themes.length ? ` about ${themes.join(', ')}` : '';
  const description = `Answers questions${about} from the recent ${input.platform} content of ${title}.`.slice(0, 2000);
  const goal = (input.intent && INTENT_GOALS[input.intent]) ?? 'Answer questions about the creator’s content accurately.';
  const systemPrompt = [
    `You are the assistant of ${title}, built from their ${input.platform} channel.`,
    goal,
    'Answer only from the provided content; when it does not cover a question, say so and suggest a related topic it covers.',
    themes.length ? `Main topics: ${themes.join(', ')}.` : '',
  ]
    .filter(Boolean)
    .join('\n');
  const starterQuestions = input.items.slice(0, 4).map((item) => `What does ${title} explain in "${item.title.slice(0, 120)}"?`);
  if (starterQuestions.length < 2) starterQuestions.push(`What topics does ${title} cover?`);
  return { name, description, systemPrompt, starterQuestions };
}
