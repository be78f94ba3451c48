import { foldName } from '../../core/graph/names';
import { extractOffline } from '../../core/graph/offline-extractor';
import { CORPUS } from './corpus';

/** Precision and recall of the offline extractor over the labelled corpus (names compared folded). */
export function extractionQuality() {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  const misses: string[] = [];
  const extras: string[] = [];
  const text = CORPUS.map((p) => p.text);
  const result = extractOffline({ chunks: text.map((content, index) => ({ index, content })), pinned: [] });
  CORPUS.forEach((p, i) => {
    const found = new Set(result.entities.filter((e) => e.mentions.some((m) => m.chunkIndex === i)).flatMap((e) => [foldName(e.name)]));
    const labels = new Set(p.entities.map(foldName));
    for (const f of found) {
      if (labels.has(f)) tp++;
      else {
        fp++;
        extras.push(f);
      }
    }
    for (const l of labels) {
      if (found.has(l)) continue;
      fn++;
      misses.push(l);
    }
  });
  return { precision: tp / (tp + fp), recall: tp / (tp + fn), misses, extras };
}
