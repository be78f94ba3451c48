/** Files of every processable format with distinct, searchable content (generated, no binary fixtures). */
import { Document, Packer, Paragraph } from 'docx';
import { PDFDocument, StandardFonts } from 'pdf-lib';

import { makeIsoMedia, makePng, makeWav } from '../../adapters/documents/fixtures/builders';

export async function pdfOf(lines: string[]): Promise<Buffer> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  const page = pdf.addPage([595, 842]);
  lines.forEach((line, i) => page.drawText(line, { x: 40, y: 800 - i * 16, size: 11, font }));
  return Buffer.from(await pdf.save());
}

export async function docxOf(paragraphs: string[]): Promise<Buffer> {
  return Packer.toBuffer(new Document({ sections: [{ children: paragraphs.map((p) => new Paragraph(p)) }] }));
}

export interface FixtureFile {
  name: string;
  type: string;
  bytes: Buffer;
  /** A question whose answer is only in this file. */
  question: string;
  /** A phrase of the answer. */
  answer: string;
}

export async function processableFiles(): Promise<FixtureFile[]> {
  return [
    {
      name: 'volcanoes.pdf',
      type: 'application/pdf',
      bytes: await pdfOf([
        'Volcano monitoring field guide.',
        'Seismometers placed around the crater detect magma moving below the volcano.',
        'Tiltmeters measure the swelling of the volcano flanks before an eruption.',
        'Gas sensors track sulfur dioxide emissions from the summit vents.',
      ]),
      question: 'How do tiltmeters help predict a volcano eruption?',
      answer: 'Tiltmeters measure the swelling',
    },
    {
      name: 'sourdough.docx',
      type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      bytes: await docxOf([
        'Sourdough baking notes.',
        'Feed the starter with equal weights of rye flour and water every twelve hours.',
        'Bulk fermentation of the dough takes about five hours at room temperature.',
      ]),
      question: 'How often should the sourdough starter be fed?',
      answer: 'every twelve hours',
    },
    {
      name: 'chess.txt',
      type: 'text/plain',
      bytes: Buffer.from(
        "Chess openings.\n\nThe Sicilian Defence begins with the moves e4 c5 and leads to sharp, unbalanced positions. The Queen's Gambit offers a pawn on c4 to gain central control.",
      ),
      question: 'Which moves start the Sicilian Defence in chess?',
      answer: 'e4 c5',
    },
    {
      name: 'beekeeping.md',
      type: 'text/markdown',
      bytes: Buffer.from(
        '# Beekeeping\n\n## Hive inspection\n\nInspect the beehive every seven days in spring and look for queen cells on the frames.\n\n- Use a smoker to calm the honey bees.\n',
      ),
      question: 'How often should a beehive be inspected in spring?',
      answer: 'every seven days',
    },
    {
      name: 'telescopes.csv',
      type: 'text/csv',
      bytes: Buffer.from(
        'Telescope,Aperture,Mount\nRefractor telescope,102 mm,equatorial mount\nDobsonian reflector telescope,254 mm,altazimuth mount\n',
      ),
      question: 'What aperture does the Dobsonian reflector telescope have?',
      answer: '254 mm',
    },
    {
      name: 'glaciers.html',
      type: 'text/html',
      bytes: Buffer.from(
        '<!doctype html><html><head><title>Glaciers</title><script>var tracking = 1;</script></head><body><nav>Home | About</nav>' +
          '<main><h1>Glacier retreat</h1><p>Alpine glaciers lose ice mass when summer melting exceeds winter snowfall accumulation.</p>' +
          '<p>Moraines mark the furthest advance of a glacier.</p></main></body></html>',
      ),
      question: 'Why do alpine glaciers lose ice mass?',
      answer: 'summer melting exceeds winter snowfall',
    },
  ];
}

/** Formats that need an optional model: they fail with the NOT_CONFIGURED reason when none is configured. */
export const mediaFiles = () => [
  { name: 'diagram.png', type: 'image/png', bytes: makePng(4, 4), reason: /vision-capable model/ },
  { name: 'interview.wav', type: 'audio/wav', bytes: makeWav(), reason: /transcription model/ },
  { name: 'talk.mp4', type: 'video/mp4', bytes: makeIsoMedia('isom', ['mp41']), reason: /transcription model/ },
];
