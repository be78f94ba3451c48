/**
 * Transcripts of media without captions (issue 13): during scraping, an item a source plugin lists with a
 * `mediaUrl` (a caption-less video or reel) is fetched through the SSRF-guarded outbound fetcher (size and
 * time bounded) and transcribed through the Transcriber port when a transcription model is configured. Each
 * transcription is billed (kind `provisioning`, priced from the catalogue). A bounded number per build
 * (preview: PREVIEW_TRANSCRIPTIONS); an item that could not be transcribed keeps what it had (title and
 * description, or nothing, and is then skipped) and the build carries a warning instead of failing.
 */
import { type BillingDeps, charge } from '../billing/billing';
import type { Transcriber } from '../ports/media-understanding';
import type { OutboundFetcher } from '../ports/outbound-fetcher';
import type { SourceItemContent } from '../sources/source-plugin';
import type { BuildMode } from './build';

/** Transcriptions per build: preview stays quick and cheap; full mode is bounded too. */
export const PREVIEW_TRANSCRIPTIONS = 3;
export const FULL_TRANSCRIPTIONS = 20;
/** Media transcribed at once. */
const CONCURRENCY = 2;
/** Time left in the phase for whatever follows the transcriptions (saving the items). */
const PHASE_RESERVE_MS = 3000;

export interface MediaTranscription {
  transcriber: Transcriber;
  billing: BillingDeps;
  /** Provider cost (USD) of a transcript (0 for free models); refuses a paid model on an empty wallet. */
  priceFor(organizationId: string, model: string): Promise<(usage: { promptTokens: number; completionTokens: number }) => number>;
}

export interface MediaSettings {
  /** Largest media file fetched (OpenAI's transcription endpoint takes at most 25 MB). */
  maxBytes: number;
  /** Bound of one fetch and of one transcription. */
  timeoutMs: number;
  previewTranscriptions: number;
  fullTranscriptions: number;
}

export const DEFAULT_MEDIA_SETTINGS: MediaSettings = {
  maxBytes: 25 * 1024 * 1024,
  timeoutMs: 60_000,
  previewTranscriptions: PREVIEW_TRANSCRIPTIONS,
  fullTranscriptions: FULL_TRANSCRIPTIONS,
};

export interface TranscribeInput {
  organizationId: string;
  buildId: string;
  mode: BuildMode;
  items: SourceItemContent[];
  /** Epoch ms the scraping phase must end by. */
  deadline: number;
  onProgress?: (done: number, total: number) => Promise<void>;
}

export interface TranscribeOutcome {
  items: SourceItemContent[];
  transcribed: number;
  /** Why some media were not transcribed, for the build's warning; absent when all were (or none had media). */
  warning?: string;
}

const EXTENSIONS: Record<string, string> = {
  'audio/mpeg': 'mp3',
  'audio/mp4': 'm4a',
  'audio/x-m4a': 'm4a',
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/webm': 'webm',
  'audio/ogg': 'ogg',
  'video/mp4': 'mp4',
  'video/webm': 'webm',
  'video/quicktime': 'mov',
};

/** Estimated tokens of a transcript (the port reports none): what the catalogue's per-token price applies to. */
export const transcriptTokens = (text: string) => Math.ceil(text.length / 4);

function within<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

const reasonOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

async function fetchMedia(fetcher: OutboundFetcher, url: string, settings: MediaSettings, timeoutMs: number) {
  const res = await fetcher.fetch({ url, method: 'GET', headers: { accept: 'audio/*,video/*' }, timeoutMs, maxBytes: settings.maxBytes });
  if (res.status < 200 || res.status > 299) throw new Error(`the media answered HTTP ${res.status}`);
  const mimeType = (res.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (!mimeType.startsWith('audio/') && !mimeType.startsWith('video/')) throw new Error(`the media is ${mimeType || 'of no type'}`);
  if (!res.body.length) throw new Error('the media is empty');
  return { bytes: res.body, mimeType };
}

/** Transcribes the media of caption-less items (without a transcription model: none, with a warning). */
export async function transcribeMedia(
  m: MediaTranscription | undefined,
  fetcher: OutboundFetcher,
  settings: MediaSettings,
  input: TranscribeInput,
): Promise<TranscribeOutcome> {
  const pending = input.items.filter((i) => i.mediaUrl);
  if (!pending.length) return { items: input.items, transcribed: 0 };
  if (!m)
    return {
      items: input.items,
      transcribed: 0,
      warning: `${pending.length} item(s) have no captions and no transcription model is configured; their titles and descriptions were used`,
    };
  const limit = input.mode === 'preview' ? settings.previewTranscriptions : settings.fullTranscriptions;
  const chosen = pending.slice(0, limit);
  const transcripts = new Map<string, string>();
  const failures: string[] = [];
  let next = 0;
  let done = 0;
  const transcribeOne = async (item: SourceItemContent) => {
    const timeLeft = input.deadline - Date.now() - PHASE_RESERVE_MS;
    if (timeLeft < 1000) throw new Error('the scraping phase ran out of time');
    const timeoutMs = Math.min(settings.timeoutMs, timeLeft);
    const costOf = await m.priceFor(input.organizationId, m.transcriber.model);
    const media = await fetchMedia(fetcher, item.mediaUrl!, settings, timeoutMs);
    const filename = `${item.key.replace(/[^A-Za-z0-9_-]/g, '_')}.${EXTENSIONS[media.mimeType] ?? 'bin'}`;
    const result = await within(
      m.transcriber.transcribe(media.bytes, { mimeType: media.mimeType, filename }),
      timeoutMs,
      'the transcription',
    );
    const usage = { promptTokens: 0, completionTokens: transcriptTokens(result.text) };
    await charge(m.billing, {
      organizationId: input.organizationId,
      kind: 'provisioning',
      model: m.transcriber.model,
      ...usage,
      providerCostUsd: costOf(usage),
      reference: {
        buildId: input.buildId,
        itemKey: item.key,
        purpose: 'transcription',
        ...(result.durationSeconds !== undefined ? { durationSeconds: result.durationSeconds } : {}),
      },
    });
    if (!result.text.trim()) throw new Error('the transcript is empty');
    transcripts.set(item.key, result.text.trim());
  };
  const worker = async () => {
    while (next < chosen.length) {
      const item = chosen[next++];
      try {
        await transcribeOne(item);
      } catch (error) {
        failures.push(`${item.key}: ${reasonOf(error)}`);
      }
      done++;
      await input.onProgress?.(done, chosen.length);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, chosen.length) }, worker));

  const items = input.items.map((item) => {
    const transcript = transcripts.get(item.key);
    const { mediaUrl: _media, ...rest } = item;
    return transcript ? { ...rest, text: [item.text.trim(), transcript].filter(Boolean).join('\n\n') } : rest;
  });
  const notes: string[] = [];
  if (failures.length)
    notes.push(
      `${failures.length} of ${chosen.length} item(s) without captions could not be transcribed (${failures[0]}${failures.length > 1 ? '; …' : ''})`,
    );
  if (pending.length > chosen.length)
    notes.push(`${pending.length - chosen.length} more item(s) without captions were not transcribed (limit ${limit})`);
  return {
    items,
    transcribed: transcripts.size,
    ...(notes.length ? { warning: `${notes.join('; ')}; their titles and descriptions were used` } : {}),
  };
}
