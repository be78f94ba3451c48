/**
 * CSV: parsed by csv-parse per RFC 4180 (quoted fields with delimiters, doubled quotes and line breaks inside), with
 * the delimiter guessed from the header line (comma, semicolon, tab or pipe). The first row is the
 * header; every other row becomes one line `header: value; header: value` so each chunk keeps the
 * meaning of its values.
 */
import { parse } from 'csv-parse/sync';

import { DomainError } from '../../core/shared/errors';
import { decodeUtf8, type ExtractedContent, type FormatLoadContext } from './format-loader';

const DELIMITERS = [',', ';', '\t', '|'] as const;
export type CsvDelimiter = (typeof DELIMITERS)[number];

export async function loadCsv(context: FormatLoadContext): Promise<ExtractedContent> {
  const source = decodeUtf8(context.bytes);
  const delimiter = detectDelimiter(source);
  const rows = parseCsv(source, delimiter);
  const [header = [], ...records] = rows;
  const columns = header.map((name, i) => clean(name) || `column ${i + 1}`);
  const lines = records.map((record) => renderRow(columns, record)).filter(Boolean);
  const text = lines.length > 0 ? lines.join('\n') : columns.length > 0 ? `Columns: ${columns.join('; ')}` : '';
  return { text, metadata: { delimiter, columns, rowCount: records.length } };
}

export function renderRow(columns: readonly string[], record: readonly string[]): string {
  return record
    .map((value, i) => [columns[i] ?? `column ${i + 1}`, clean(value)] as const)
    .filter(([, value]) => value !== '')
    .map(([column, value]) => `${column}: ${value}`)
    .join('; ');
}

const clean = (value: string): string => value.replace(/\s+/g, ' ').trim();

/** The candidate that occurs most often outside quotes on the first line; comma on a tie or none. */
export function detectDelimiter(source: string): CsvDelimiter {
  const counts = new Map<CsvDelimiter, number>(DELIMITERS.map((d) => [d, 0]));
  let quoted = false;
  for (const ch of source) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && (ch === '\n' || ch === '\r')) break;
    else if (!quoted && counts.has(ch as CsvDelimiter)) counts.set(ch as CsvDelimiter, counts.get(ch as CsvDelimiter)! + 1);
  }
  let best: CsvDelimiter = ',';
  for (const d of DELIMITERS) if (counts.get(d)! > counts.get(best)!) best = d;
  return best;
}

/**
 * Rows of fields (csv-parse, RFC 4180); blank rows are skipped, spaces around a field are dropped, rows may
 * have different lengths and a stray quote inside an unquoted field is kept (lenient, as uploads are).
 */
export function parseCsv(source: string, delimiter: CsvDelimiter = ','): string[][] {
  try {
    return parse(source, {
      delimiter,
      bom: true,
      trim: true,
      relax_quotes: true,
      relax_column_count: true,
      skip_empty_lines: true,
      skip_records_with_empty_values: true,
    }) as string[][];
  } catch (err) {
    throw new DomainError('VALIDATION', `Not a valid CSV file: ${(err as Error).message}`);
  }
}
