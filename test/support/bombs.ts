/**
 * Decompression bombs, generated at test time (no binary fixtures): small files whose compressed parts unpack
 * to tens or hundreds of megabytes. Used by the heavy-work tests and bench/heavy-work.bench.ts.
 */
import { deflateSync } from 'node:zlib';

import { zipOf as buildZip } from '../../adapters/documents/fixtures/builders';

/** A ZIP archive with deflated entries: the one builder of the document fixtures. */
export const zipOf = (parts: { name: string; data: Buffer }[]) => buildZip(parts, { deflate: true });

const CONTENT_TYPES =
  '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
  '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
  '<Default Extension="xml" ContentType="application/xml"/>' +
  '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>';
const RELS =
  '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
  '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>';

/** A .docx whose word/document.xml unpacks to about `megabytes` MB of paragraphs (default 24). */
export function docxBomb(megabytes = 24): Buffer {
  const paragraph = '<w:p><w:r><w:t>All work and no play makes a dull document. </w:t></w:r></w:p>';
  const body = paragraph.repeat(Math.ceil((megabytes * 1024 * 1024) / paragraph.length));
  const xml = `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}</w:body></w:document>`;
  return zipOf([
    { name: '[Content_Types].xml', data: Buffer.from(CONTENT_TYPES) },
    { name: '_rels/.rels', data: Buffer.from(RELS) },
    { name: 'word/document.xml', data: Buffer.from(xml) },
  ]);
}

/** Filters pdfBomb can write: the FlateDecode bomb itself and the ASCII encodings chained before it. */
export type BombFilter = 'FlateDecode' | 'ASCIIHexDecode' | 'ASCII85Decode';

function ascii85(data: Buffer): Buffer {
  let out = '';
  for (let i = 0; i < data.length; i += 4) {
    const n = Math.min(4, data.length - i);
    const group = Buffer.alloc(4);
    data.copy(group, 0, i, i + n);
    let value = group.readUInt32BE(0);
    if (value === 0 && n === 4) {
      out += 'z';
      continue;
    }
    const digits = new Array<string>(5);
    for (let d = 4; d >= 0; d--) {
      digits[d] = String.fromCharCode(0x21 + (value % 85));
      value = Math.floor(value / 85);
    }
    out += digits.slice(0, n + 1).join('');
  }
  return Buffer.from(`${out}~>`, 'latin1');
}

const ENCODERS: Record<BombFilter, (data: Buffer) => Buffer> = {
  FlateDecode: (data) => deflateSync(data, { level: 9 }),
  ASCIIHexDecode: (data) => Buffer.from(`${data.toString('hex')}>`, 'latin1'),
  ASCII85Decode: ascii85,
};

/**
 * A one-page PDF whose content stream is `megabytes` MB (default 100) of spaces under `filters` (default one
 * FlateDecode; `['ASCIIHexDecode', 'FlateDecode']` is the hex-wrapped bomb: decoded left to right).
 */
export function pdfBomb(megabytes = 100, filters: BombFilter[] = ['FlateDecode']): Buffer {
  return pdfOfContent(Buffer.alloc(megabytes * 1024 * 1024, 0x20), filters);
}

/** A one-page PDF (Helvetica as /F1) whose content stream is `content` written under `filters`. */
export function pdfOfContent(content: Buffer, filters: BombFilter[] = ['FlateDecode']): Buffer {
  let stream = content;
  for (const filter of [...filters].reverse()) stream = ENCODERS[filter](stream);
  const filter = filters.length === 1 ? `/${filters[0]}` : `[${filters.map((f) => `/${f}`).join(' ')}]`;
  const objects: Buffer[] = [
    Buffer.from('<< /Type /Catalog /Pages 2 0 R >>'),
    Buffer.from('<< /Type /Pages /Kids [3 0 R] /Count 1 >>'),
    Buffer.from('<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>'),
    Buffer.concat([Buffer.from(`<< /Length ${stream.length} /Filter ${filter} >>\nstream\n`), stream, Buffer.from('\nendstream')]),
    Buffer.from('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'),
  ];
  const chunks: Buffer[] = [Buffer.from('%PDF-1.4\n')];
  const offsets: number[] = [];
  let size = chunks[0].length;
  objects.forEach((body, i) => {
    offsets.push(size);
    const object = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), body, Buffer.from('\nendobj\n')]);
    chunks.push(object);
    size += object.length;
  });
  const xref = ['xref', `0 ${objects.length + 1}`, '0000000000 65535 f ', ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n `)];
  chunks.push(Buffer.from(`${xref.join('\n')}\ntrailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${size}\n%%EOF\n`));
  return Buffer.concat(chunks);
}
