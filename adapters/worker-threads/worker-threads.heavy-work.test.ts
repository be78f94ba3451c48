/**
 * The worker-threads pool against real threads: tasks run there and come back whole, a task past its time or
 * memory bound fails alone (its thread is replaced), and the event loop of the caller keeps turning meanwhile.
 */
import { docxOf, pdfOf } from '../../test/knowledge/file-fixtures';
import { docxBomb, pdfBomb } from '../../test/support/bombs';
import { DEFAULT_EXTRACTION_LIMITS } from '../documents/multi-format.document-loader';
import { InProcessHeavyWork, WorkerThreadsHeavyWork } from './worker-threads.heavy-work';

const settings = { limits: DEFAULT_EXTRACTION_LIMITS };
const BOOT = 120_000;
/** Enough text for the chunker to take seconds (it is linear; only the bound below matters). */
const hugeText = () => 'The quick brown fox jumps over the lazy dog. '.repeat(400_000);

describe('worker-threads heavy work', () => {
  let work: WorkerThreadsHeavyWork;
  beforeAll(() => {
    work = new WorkerThreadsHeavyWork(settings, { threads: 2, timeoutMs: 20_000, memoryMb: 256 });
  });
  afterAll(() => work.close());

  it(
    'extracts documents in a thread, the same as in process',
    async () => {
      const inline = new InProcessHeavyWork(settings);
      const input = { bytes: await docxOf(['Sourdough notes.', 'Feed the starter every twelve hours.']), filename: 'bread.docx' };
      const pooled = await work.run('document.extract', input);
      expect(pooled.text).toContain('Feed the starter every twelve hours.');
      expect(pooled).toEqual(await inline.run('document.extract', input));
      const pdf = await work.run('document.extract', { bytes: await pdfOf(['Tiltmeters measure swelling.']), filename: 'v.pdf' });
      expect(pdf.text).toContain('Tiltmeters measure swelling.');
    },
    BOOT,
  );

  it('chunks, summarizes and embeds like the inline functions', async () => {
    const inline = new InProcessHeavyWork(settings);
    const text = 'Volcanoes erupt when magma rises. Seismometers detect it early. Tiltmeters measure the swelling flanks. '.repeat(40);
    expect(await work.run('text.chunk', { text, options: { size: 300, overlap: 50 } })).toEqual(
      await inline.run('text.chunk', { text, options: { size: 300, overlap: 50 } }),
    );
    expect(await work.run('text.summarize', { text, title: 'volcanoes.txt' })).toEqual(
      await inline.run('text.summarize', { text, title: 'volcanoes.txt' }),
    );
    const { vectors, tokens } = await work.run('embed.local', { texts: ['magma rises', 'tiltmeters'], dimensions: 64 });
    expect(vectors).toHaveLength(2);
    expect(vectors[0].constructor.name).toBe('Float32Array'); // another realm's class under jest
    expect(vectors[0]).toHaveLength(64);
    expect(tokens).toBeGreaterThan(0);
  });

  it.each([
    ['bomb.docx', () => docxBomb(24)],
    ['bomb.pdf', () => pdfBomb(100)],
  ])('fails %s with "too large when unpacked" (in a thread and in process)', async (filename, make) => {
    const bytes = make();
    for (const runner of [work, new InProcessHeavyWork(settings)]) {
      await expect(runner.run('document.extract', { bytes, filename })).rejects.toMatchObject({
        code: 'PAYLOAD_TOO_LARGE',
        message: expect.stringContaining(`"${filename}" is too large when unpacked`),
      });
    }
  });

  it('reports domain errors of a task with their code', async () => {
    await expect(work.run('document.extract', { bytes: Buffer.from('   '), filename: 'empty.txt' })).rejects.toMatchObject({
      code: 'VALIDATION',
      message: expect.stringContaining('No extractable text'),
    });
  });
});

describe('bounds', () => {
  it(
    'stops a task past its time bound, keeps the caller loop turning meanwhile, and serves the next task on a fresh thread',
    async () => {
      const work = new WorkerThreadsHeavyWork(settings, { threads: 1, timeoutMs: 1_500, memoryMb: 512 });
      try {
        await work.run('text.chunk', { text: 'warm up', options: {} }); // the thread is booted and ready
        let ticks = 0;
        const ticker = setInterval(() => ticks++, 10);
        let settled = false;
        const slow = work.run('text.chunk', { text: hugeText(), options: { size: 200, overlap: 20 } }).finally(() => (settled = true));
        await new Promise((resolve) => setTimeout(resolve, 500));
        const ticksWhileRunning = ticks;
        expect(settled).toBe(false);
        await expect(slow).rejects.toMatchObject({ code: 'VALIDATION', details: { limit: 'time' } });
        clearInterval(ticker);
        // inline, the chunker would have held the loop for the whole 500 ms: no tick at all
        expect(ticksWhileRunning).toBeGreaterThan(5);
        expect(await work.run('text.chunk', { text: 'after the stop', options: {} })).toHaveLength(1);
      } finally {
        await work.close();
      }
    },
    BOOT,
  );

  it(
    'stops a task past its memory bound; the pool goes on',
    async () => {
      const work = new WorkerThreadsHeavyWork(settings, { threads: 1, timeoutMs: 60_000, memoryMb: 48 });
      try {
        // 2.4M chunk objects with their strings need far more than 48 MB of heap
        const error = await work.run('text.chunk', { text: hugeText(), options: { size: 20, overlap: 0 } }).catch((e) => e);
        expect(error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', details: { limit: 'memory' } });
        expect(await work.run('text.chunk', { text: 'still here', options: {} })).toHaveLength(1);
      } finally {
        await work.close();
      }
    },
    BOOT,
  );

  it('refuses tasks once closed', async () => {
    const work = new WorkerThreadsHeavyWork(settings, { threads: 1, timeoutMs: 1_000, memoryMb: 64 });
    await work.close();
    await expect(work.run('text.chunk', { text: 'x', options: {} })).rejects.toThrow('closed');
  });
});
