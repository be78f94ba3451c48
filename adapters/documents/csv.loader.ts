/**
 * CSV: parsed per RFC 4180 (quoted fields with delimiters, doubled quotes and line breaks inside), with
 * the delimiter guessed from the header line (comma, semicolon, tab or pipe). The first row is the
 * header; every other row becomes one line `header: value; header: value` so each chunk keeps the
 * meaning of its values.
 */
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

/** Rows of fields; blank lines are skipped. A quote opens a quoted field only at the start of a field. */
export function parseCsv(source: string, delimiter: CsvDelimiter = ','): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  let fieldStart = true;
  let closedQuote = false;

  const endField = () => {
    row.push(field);
    field = '';
    fieldStart = true;
    closedQuote = false;
  };
  const endRow = () => {
    endField();
    if (row.some((f) => f.trim() !== '')) rows.push(row);
    row = [];
  };

  for (let i = 0; i < source.length; i++) {
    const ch = source[i];
    if (quoted) {
      if (ch !== '"') field += ch;
      else if (source[i + 1] === '"') {
        field += '"';
        i++;
      } else {
        quoted = false;
        closedQuote = true;
      }
      continue;
    }
    if (ch === '"' && fieldStart) {
      // Spaces before the opening quote are not part of the value.
      quoted = true;
      fieldStart = false;
      field = '';
    } else if (ch === delimiter) endField();
    else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && source[i + 1] === '\n') i++;
      endRow();
    } else if (!(closedQuote && ch === ' ')) {
      // Spaces after the closing quote are dropped; any other stray character is kept (lenient).
      field += ch;
      if (ch !== ' ') fieldStart = false;
    }
  }
  if (field !== '' || row.length > 0) endRow();
  return rows;
}
