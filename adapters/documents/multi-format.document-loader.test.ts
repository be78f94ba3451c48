import { chunkText, normalizeWhitespace } from '../../core/knowledge/chunker';
import type { DocumentLoader } from '../../core/ports/document-loader';
import type { ImageDescriber, Transcriber } from '../../core/ports/media-understanding';
import { DomainError } from '../../core/shared/errors';
import {
  makeDocx,
  makeGif,
  makeIsoMedia,
  makeJpeg,
  makeMp3,
  makeOgg,
  makePdf,
  makePng,
  makeScannedPdf,
  makeWav,
  makeWebm,
  makeWebp,
  makeWordDoc,
} from './fixtures/builders';
import { MultiFormatDocumentLoader } from './multi-format.document-loader';

async function failure(promise: Promise<unknown>): Promise<DomainError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DomainError);
  return error as DomainError;
}

class FakeDescriber implements ImageDescriber {
  readonly model = 'fake/vision-1';
  readonly calls: { size: number; mimeType: string }[] = [];
  constructor(private readonly reply: { caption: string; text: string } = { caption: 'A bar chart of sales', text: 'Q1 120\nQ2 150' }) {}
  async describe(image: Buffer, options: { mimeType: string }) {
    this.calls.push({ size: image.length, mimeType: options.mimeType });
    return this.reply;
  }
}

class FakeTranscriber implements Transcriber {
  readonly model = 'fake/whisper-1';
  readonly calls: { size: number; mimeType: string; filename: string }[] = [];
  constructor(
    private readonly reply: { text: string; durationSeconds?: number } | Error = {
      text: 'Welcome to the weekly call.',
      durationSeconds: 3.5,
    },
  ) {}
  async transcribe(audio: Buffer, options: { mimeType: string; filename: string }) {
    this.calls.push({ size: audio.length, ...options });
    if (this.reply instanceof Error) throw this.reply;
    return this.reply;
  }
}

describe('MultiFormatDocumentLoader', () => {
  const loader: DocumentLoader = new MultiFormatDocumentLoader();

  describe('detect', () => {
    it('returns the canonical MIME type and kind', async () => {
      const result = await loader.detect({
        filename: 'slides.pdf',
        bytes: await makePdf([['x']]),
        declaredMimeType: 'application/octet-stream',
      });
      expect(result).toEqual({ mimeType: 'application/pdf', kind: 'pdf' });
      expect(await loader.detect({ filename: 'a.jpeg', bytes: makeJpeg(1, 1) })).toEqual({ mimeType: 'image/jpeg', kind: 'image' });
    });

    it('throws UNSUPPORTED_MEDIA_TYPE for unknown extensions and mismatched bytes', async () => {
      await expect(async () => loader.detect({ filename: 'x.xyz', bytes: Buffer.from('x') })).rejects.toThrow(
        'Unsupported file type: .xyz',
      );
      await expect(async () => loader.detect({ filename: 'x.pdf', bytes: makePng(1, 1) })).rejects.toThrow(
        /bytes do not match the declared type/,
      );
    });
  });

  describe('PDF', () => {
    it('extracts the text of every page, the title and the page count', async () => {
      const bytes = await makePdf(
        [
          ['Annual report 2024', 'Revenue grew by twelve percent.'],
          ['Outlook', 'We expect steady growth.'],
        ],
        'Annual Report',
      );
      const doc = await loader.load({ filename: 'report.pdf', bytes, declaredMimeType: 'application/pdf' });
      expect(doc.mimeType).toBe('application/pdf');
      expect(doc.title).toBe('Annual Report');
      expect(doc.text).toBe('Annual report 2024\nRevenue grew by twelve percent.\n\nOutlook\nWe expect steady growth.');
      expect(doc.metadata).toMatchObject({ pages: 2, format: 'pdf', sizeBytes: bytes.length });
    });

    it('reads PDFs handed over as a slice of a larger buffer', async () => {
      const pdf = await makePdf([['Sliced buffer text']]);
      const big = Buffer.concat([Buffer.alloc(100, 7), pdf, Buffer.alloc(50, 9)]);
      const doc = await loader.load({ filename: 'a.pdf', bytes: big.subarray(100, 100 + pdf.length) });
      expect(doc.text).toBe('Sliced buffer text');
    });

    it('fails a scanned PDF without a text layer with a specific reason', async () => {
      const error = await failure(loader.load({ filename: 'scan.pdf', bytes: await makeScannedPdf() }));
      expect(error.code).toBe('VALIDATION');
      expect(error.message).toBe('No extractable text in "scan.pdf": the PDF has no text layer (scanned pages would need OCR)');
    });

    it('fails a damaged PDF with VALIDATION naming the file', async () => {
      // pdf.js reports its recovery attempts with console.log.
      jest.spyOn(console, 'log').mockImplementation(() => undefined);
      const error = await failure(loader.load({ filename: 'broken.pdf', bytes: Buffer.from('%PDF-1.7\n%garbage with no objects\n') }));
      expect(error.code).toBe('VALIDATION');
      expect(error.message).toMatch(/^"broken.pdf" could not be read as a PDF document/);
      jest.restoreAllMocks();
    });
  });

  describe('Word', () => {
    it('DOCX: keeps headings, paragraphs, list items and table rows on their own lines; title from properties', async () => {
      const doc = await loader.load({ filename: 'policy.docx', bytes: await makeDocx() });
      expect(doc.mimeType).toBe('application/vnd.openxmlformats-officedocument.wordprocessingml.document');
      expect(doc.title).toBe('Travel Policy');
      expect(doc.text).toBe(
        [
          'Travel policy 2024',
          'Booking',
          'Book trains for trips under four hours.',
          '- Use the approved agency.',
          'City | Daily allowance\nParis | 120 EUR',
        ].join('\n\n'),
      );
    });

    it('DOC: reads the text of a Word 97-2003 file (a minimal file built by the test, not one saved by Word)', async () => {
      const bytes = makeWordDoc(['Quarterly report', 'Revenue grew by 12 percent in Q3.', 'Café crème']);
      expect(await loader.detect({ filename: 'old.doc', bytes })).toEqual({ mimeType: 'application/msword', kind: 'doc' });
      const doc = await loader.load({ filename: 'old.doc', bytes, declaredMimeType: 'application/msword' });
      expect(doc.text).toBe('Quarterly report\nRevenue grew by 12 percent in Q3.\nCafé crème');
    });

    it('DOC: an empty document fails with No extractable text', async () => {
      const error = await failure(loader.load({ filename: 'blank.doc', bytes: makeWordDoc(['']) }));
      expect(error.message).toMatch(/^No extractable text in "blank.doc"/);
    });
  });

  describe('images', () => {
    it('fail with NOT_CONFIGURED when no vision model is configured', async () => {
      for (const [filename, bytes] of [
        ['a.png', makePng(2, 2)],
        ['a.jpg', makeJpeg(2, 2)],
        ['a.gif', makeGif(2, 2)],
        ['a.webp', makeWebp(2, 2)],
      ] as const) {
        const error = await failure(loader.load({ filename, bytes }));
        expect(error.code).toBe('NOT_CONFIGURED');
        expect(error.message).toBe('Image text extraction needs a vision-capable model; none is configured');
      }
    });

    it('use the describer for caption and OCR text, with dimensions from the bytes', async () => {
      const describer = new FakeDescriber();
      const withVision = new MultiFormatDocumentLoader({ imageDescriber: describer });
      const png = makePng(64, 32);
      const doc = await withVision.load({ filename: 'chart.png', bytes: png, declaredMimeType: 'image/png' });
      expect(doc).toEqual({
        text: 'A bar chart of sales\n\nQ1 120\nQ2 150',
        mimeType: 'image/png',
        images: [{ ref: 'chart.png', mimeType: 'image/png', description: 'A bar chart of sales' }],
        metadata: expect.objectContaining({ format: 'png', width: 64, height: 32, imageFormat: 'png', describerModel: 'fake/vision-1' }),
      });
      expect(describer.calls).toEqual([{ size: png.length, mimeType: 'image/png' }]);

      for (const [filename, bytes, format, width, height] of [
        ['p.jpg', makeJpeg(40, 30), 'jpeg', 40, 30],
        ['p.gif', makeGif(7, 5), 'gif', 7, 5],
        ['p.webp', makeWebp(300, 200), 'webp', 300, 200],
      ] as const) {
        const loaded = await withVision.load({ filename, bytes });
        expect(loaded.metadata).toMatchObject({ format, width, height });
      }
      expect(describer.calls.map((c) => c.mimeType)).toEqual(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
    });

    it('fail with No extractable text when the description is empty', async () => {
      const blank = new MultiFormatDocumentLoader({ imageDescriber: new FakeDescriber({ caption: ' ', text: '' }) });
      const error = await failure(blank.load({ filename: 'white.png', bytes: makePng(1, 1) }));
      expect(error.message).toBe('No extractable text in "white.png": the image description came back empty');
    });
  });

  describe('audio and video', () => {
    const audio = [
      ['talk.mp3', makeMp3(true), 'audio/mpeg'],
      ['talk.wav', makeWav(), 'audio/wav'],
      ['talk.m4a', makeIsoMedia('M4A ', ['isom']), 'audio/mp4'],
      ['talk.ogg', makeOgg(), 'audio/ogg'],
    ] as const;
    const video = [
      ['clip.mp4', makeIsoMedia('isom', ['avc1']), 'video/mp4'],
      ['clip.webm', makeWebm(), 'video/webm'],
      ['clip.mov', makeIsoMedia('qt  '), 'video/quicktime'],
    ] as const;

    it('fail with NOT_CONFIGURED when no transcription model is configured', async () => {
      for (const [filename, bytes] of audio) {
        const error = await failure(loader.load({ filename, bytes }));
        expect(error.code).toBe('NOT_CONFIGURED');
        expect(error.message).toBe('Audio transcription needs a transcription model; none is configured');
      }
      for (const [filename, bytes] of video) {
        const error = await failure(loader.load({ filename, bytes }));
        expect(error.code).toBe('NOT_CONFIGURED');
        expect(error.message).toBe('Video transcription needs a transcription model; none is configured');
      }
    });

    it('use the transcriber with the canonical MIME type and file name', async () => {
      const transcriber = new FakeTranscriber();
      const withSpeech = new MultiFormatDocumentLoader({ transcriber });
      for (const [filename, bytes, mimeType] of [...audio, ...video]) {
        const doc = await withSpeech.load({ filename, bytes });
        expect(doc).toMatchObject({
          text: 'Welcome to the weekly call.',
          mimeType,
          images: [],
          metadata: { transcriberModel: 'fake/whisper-1', durationSeconds: 3.5 },
        });
        expect(transcriber.calls.at(-1)).toEqual({ size: bytes.length, mimeType, filename });
      }
    });

    it('report an empty transcript and provider failures distinctly', async () => {
      const silent = new MultiFormatDocumentLoader({ transcriber: new FakeTranscriber({ text: '   ' }) });
      const empty = await failure(silent.load({ filename: 'silence.wav', bytes: makeWav() }));
      expect(empty.code).toBe('VALIDATION');
      expect(empty.message).toBe('No extractable text in "silence.wav": the transcript is empty (no speech found)');

      const down = new MultiFormatDocumentLoader({ transcriber: new FakeTranscriber(new Error('503 from provider')) });
      const upstream = await failure(down.load({ filename: 'talk.wav', bytes: makeWav() }));
      expect(upstream.code).toBe('UPSTREAM_FAILED');
      expect(upstream.message).toBe('Audio transcription failed: 503 from provider');
    });

    it('check the bytes before calling the model', async () => {
      const transcriber = new FakeTranscriber();
      const withSpeech = new MultiFormatDocumentLoader({ transcriber });
      const error = await failure(withSpeech.load({ filename: 'talk.mp3', bytes: Buffer.from('not audio at all') }));
      expect(error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
      expect(transcriber.calls).toEqual([]);
    });
  });

  it('returns text that is already normalised, so chunk offsets point into it', async () => {
    const doc = await loader.load({ filename: 'n.txt', bytes: Buffer.from('A  b\r\n\r\n\r\nc\td '.repeat(200)) });
    expect(normalizeWhitespace(doc.text)).toBe(doc.text);
    for (const chunk of chunkText(doc.text, { size: 100, overlap: 20 })) {
      expect(doc.text.slice(chunk.start, chunk.end)).toBe(chunk.content);
    }
  });
});
