/**
 * PDF filter chains under the unpack bounds: a bomb wrapped in ASCIIHex or ASCII85 before its FlateDecode fails
 * like a plain one ("too large when unpacked"), in the scan before pdf.js and in a bounded worker thread, and a
 * decent chained PDF still reads. The decoders against known vectors.
 */
import { pdfBomb, pdfOfContent } from '../../test/support/bombs';
import { WorkerThreadsHeavyWork } from '../worker-threads/worker-threads.heavy-work';
import { DEFAULT_EXTRACTION_LIMITS, MultiFormatDocumentLoader } from './multi-format.document-loader';
import { decodeChain, decodeStage, FilterOutputTooLarge, filtersOf } from './pdf-filters';

const decode = (data: Buffer, filters: string[], cap = 1 << 20) => {
  const sizes: number[] = [];
  const ok = decodeChain(
    data,
    filters,
    () => cap,
    (_f, n) => sizes.push(n),
  );
  return { ok, sizes };
};

describe('PDF filter decoders', () => {
  it('reads /Filter as a name or an array, and not an indirect one', () => {
    expect(filtersOf('<< /Length 5 /Filter [/ASCIIHexDecode /FlateDecode] >>')).toEqual(['ASCIIHexDecode', 'FlateDecode']);
    expect(filtersOf('<< /Filter/LZWDecode /Length 5 >>')).toEqual(['LZWDecode']);
    expect(filtersOf('<< /Filter 7 0 R >>')).toBeNull();
    expect(filtersOf('<< /Length 5 >>')).toBeNull();
  });

  it('decodes LZW (the spec example), RunLength, ASCIIHex and ASCII85', () => {
    const text = (filter: string, data: Buffer | string) => decodeStage(filter, Buffer.from(data), 1 << 20).toString('latin1');
    expect(text('LZWDecode', Buffer.from([0x80, 0x0b, 0x60, 0x50, 0x22, 0x0c, 0x0c, 0x85, 0x01]))).toBe('-----A---B');
    expect(text('RunLengthDecode', Buffer.from([2, 0x61, 0x62, 0x63, 253, 0x78, 128]))).toBe('abcxxxx');
    expect(text('ASCIIHexDecode', '48 65 6c6C 6F>')).toBe('Hello');
    expect(text('ASCII85Decode', '87cURD]i,"Ebo80~>')).toBe('Hello World!');
    expect(decode(Buffer.from('48 65>'), ['ASCIIHexDecode', 'DCTDecode'])).toEqual({ ok: true, sizes: [2] });
  });

  it('stops a stage one byte past its cap', () => {
    expect(() => decode(Buffer.from('41'.repeat(100)), ['ASCIIHexDecode'], 99)).toThrow(FilterOutputTooLarge);
    expect(() => decode(Buffer.from([129, 0x20, 129, 0x20]), ['RunLengthDecode'], 200)).toThrow(FilterOutputTooLarge);
    expect(decode(Buffer.from([129, 0x20]), ['RunLengthDecode'], 128)).toEqual({ ok: true, sizes: [128] });
  });
});

describe('PDF filter chains under the unpack bounds', () => {
  const loader = new MultiFormatDocumentLoader({ limits: DEFAULT_EXTRACTION_LIMITS });

  it.each([
    [['ASCIIHexDecode', 'FlateDecode'] as const],
    [['ASCII85Decode', 'FlateDecode'] as const],
    [['FlateDecode', 'FlateDecode'] as const],
  ])('fails a %j bomb as too large when unpacked, before pdf.js unpacks it', async (filters) => {
    const bytes = pdfBomb(100, [...filters]);
    expect(bytes.length).toBeLessThan(400_000); // small file, 100 MB unpacked
    await expect(loader.load({ bytes, filename: 'chained.pdf' })).rejects.toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
      message: expect.stringContaining('"chained.pdf" is too large when unpacked (stream 1)'),
    });
  });

  it('still reads a chained PDF within the bounds', async () => {
    const content = Buffer.from('BT /F1 12 Tf 50 780 Td (Chained filters are fine) Tj ET');
    const doc = await loader.load({ bytes: pdfOfContent(content, ['ASCIIHexDecode', 'FlateDecode']), filename: 'fine.pdf' });
    expect(doc.text).toContain('Chained filters are fine');
  });

  it('fails the hex-wrapped bomb in a worker thread with the clear error, well inside the time bound', async () => {
    // the bound is generous for a loaded 2-core machine; unbounded, pdf.js spends it all (about 9 s for 250 MB)
    const work = new WorkerThreadsHeavyWork({ limits: DEFAULT_EXTRACTION_LIMITS }, { threads: 1, timeoutMs: 20_000, memoryMb: 512 });
    try {
      const error = await work
        .run('document.extract', { bytes: pdfBomb(250, ['ASCIIHexDecode', 'FlateDecode']), filename: 'a.pdf' })
        .catch((e) => e);
      expect(error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', message: expect.stringContaining('too large when unpacked') });
    } finally {
      await work.close();
    }
  }, 120_000);
});
