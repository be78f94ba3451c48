/**
 * CSV serialisation of an export table with csv-stringify: UTF-8 byte-order mark, header row, CRLF records,
 * RFC 4180 quoting (a cell with a comma, quote, CR or LF is quoted, quotes doubled), and cells starting with
 * `= + - @`, tab or CR neutralised with a leading apostrophe against formula injection. Rows are pulled from the
 * table only as fast as the destination drains (stream.pipeline carries the backpressure end to end).
 */
import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

import { stringify } from 'csv-stringify';
import type { Response } from 'express';

import type { ExportTable } from '../../core/contacts/contact-export';

const text = (value: unknown) => String(value);

/** Pipes the table's CSV into any writable (the HTTP response, a file, a benchmark's sink). */
export async function writeCsv(table: ExportTable, destination: Writable): Promise<void> {
  await pipeline(Readable.from(table.rows, { objectMode: true, highWaterMark: 64 }), csvStringifier(table.columns), destination);
}

function csvStringifier(columns: string[]) {
  return stringify({
    bom: true,
    header: true,
    columns,
    record_delimiter: 'windows',
    escape_formulas: true,
    // Spreadsheets read `true`, numbers and ISO dates as written; nested values as JSON.
    cast: { boolean: text, date: (d) => d.toISOString(), object: (o) => JSON.stringify(o) },
  });
}

/** Answers a CSV download (spec 4.11 headers, chunked); a failure mid-stream cuts the transfer so it is never mistaken for a whole file. */
export async function sendCsv(res: Response, table: ExportTable): Promise<void> {
  res.status(200);
  res.setHeader('Content-Type', 'text/csv; charset=utf-8');
  res.setHeader('Content-Disposition', 'attachment; filename=contacts.csv');
  res.setHeader('Cache-Control', 'no-store');
  try {
    await writeCsv(table, res);
  } catch (e) {
    // Headers are gone: pipeline has destroyed the response; a client that went away is no error either.
    if (!res.destroyed) res.destroy(e as Error);
  }
}
