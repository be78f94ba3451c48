/**
 * Shared behaviour of every HeavyWork adapter: each task's output equals the inline functions', domain errors
 * keep their code across the boundary, and decompression bombs fail with "too large when unpacked".
 */
import { offlineGraphExtractor } from '../../core/graph/offline-extractor';
import { chunkText } from '../../core/knowledge/chunker';
import { summarize } from '../../core/knowledge/summarize';
import type { HeavyWork } from '../../core/ports/heavy-work';
import { docxOf, pdfOf } from '../knowledge/file-fixtures';
import { docxBomb, pdfBomb } from '../support/bombs';

const TEXT = 'Volcanoes erupt when magma rises. Seismometers detect it early. Tiltmeters measure the swelling flanks. '.repeat(40);

export function heavyWorkConformance(name: string, create: () => Promise<HeavyWork>): void {
  describe(`HeavyWork conformance: ${name}`, () => {
    let work: HeavyWork;
    beforeAll(async () => {
      work = await create();
    });
    afterAll(() => work.close());

    it('extracts DOCX and PDF text', async () => {
      const docx = await work.run('document.extract', {
        bytes: await docxOf(['Sourdough notes.', 'Feed the starter every twelve hours.']),
        filename: 'bread.docx',
      });
      expect(docx).toMatchObject({ text: expect.stringContaining('Feed the starter every twelve hours.'), metadata: { format: 'docx' } });
      const pdf = await work.run('document.extract', { bytes: await pdfOf(['Tiltmeters measure swelling.']), filename: 'v.pdf' });
      expect(pdf.text).toContain('Tiltmeters measure swelling.');
    }, 120_000);

    it('chunks and summarizes exactly like the core functions', async () => {
      const options = { size: 300, overlap: 50 };
      expect(await work.run('text.chunk', { text: TEXT, options })).toEqual(chunkText(TEXT, options));
      expect(await work.run('text.summarize', { text: TEXT, title: 'volcanoes.txt' })).toEqual(summarize(TEXT, { title: 'volcanoes.txt' }));
    });

    it('extracts a graph exactly like the offline extractor', async () => {
      const input = {
        documentTitle: 'people.txt',
        chunks: [{ index: 0, content: 'Ada Lovelace worked with Charles Babbage in London.' }],
        pinned: [{ name: 'Analytical Engine', type: 'product', aliases: [] }],
      };
      const extraction = await work.run('graph.extractOffline', input);
      expect(extraction).toEqual(await offlineGraphExtractor.extract(input));
      expect(extraction.entities.map((e) => e.name)).toEqual(expect.arrayContaining(['Ada Lovelace', 'Charles Babbage']));
    });

    it('embeds with the offline embedder, one float32 row per text', async () => {
      const { vectors, tokens } = await work.run('embed.local', { texts: ['magma rises', 'tiltmeters'], dimensions: 64 });
      expect(vectors.map((v) => [v.constructor.name, v.length])).toEqual([
        ['Float32Array', 64],
        ['Float32Array', 64],
      ]);
      expect(tokens).toBeGreaterThan(0);
    });

    it('keeps the code of a domain error', async () => {
      await expect(work.run('document.extract', { bytes: Buffer.from('   '), filename: 'empty.txt' })).rejects.toMatchObject({
        code: 'VALIDATION',
        message: expect.stringContaining('No extractable text'),
      });
    });

    it.each([
      ['bomb.docx', () => docxBomb(24), 'word/document.xml'],
      ['bomb.pdf', () => pdfBomb(100), 'stream 1'],
    ])('fails %s with "too large when unpacked"', async (filename, make, part) => {
      await expect(work.run('document.extract', { bytes: make(), filename })).rejects.toMatchObject({
        code: 'PAYLOAD_TOO_LARGE',
        message: expect.stringContaining(`"${filename}" is too large when unpacked (${part})`),
      });
    });
  });
}
