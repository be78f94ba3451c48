import { DomainError } from '../../core/shared/errors';
import { describeBytes, detectFile } from './file-signature';
import { fileExtension, SUPPORTED_EXTENSIONS } from './file-types';
import {
  makeDocx,
  makeGif,
  makeIsoMedia,
  makeJpeg,
  makeMp3,
  makeOgg,
  makeOleFile,
  makePdf,
  makePng,
  makeWav,
  makeWebm,
  makeWebp,
  makeWordDoc,
  makeZip,
} from './fixtures/builders';

async function rejection(filename: string, bytes: Buffer, declaredMimeType?: string): Promise<DomainError> {
  try {
    await detectFile({ filename, bytes, declaredMimeType });
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    return error as DomainError;
  }
  throw new Error(`${filename} was accepted`);
}

const expectMismatch = async (filename: string, bytes: Buffer, looksLike?: RegExp, declared?: string) => {
  const error = await rejection(filename, bytes, declared);
  expect(error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  expect(error.message).toMatch(/bytes do not match the declared type/);
  if (looksLike) expect(error.message).toMatch(looksLike);
};

let pdf: Buffer;
let docx: Buffer;
beforeAll(async () => {
  pdf = await makePdf([['Hello']]);
  docx = await makeDocx();
});

describe('detectFile: accepted files', () => {
  const samples = (): [string, Buffer, string, string][] => [
    ['a.pdf', pdf, 'pdf', 'application/pdf'],
    ['a.docx', docx, 'docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
    ['a.doc', makeWordDoc(['Hi']), 'doc', 'application/msword'],
    ['a.txt', Buffer.from('plain words'), 'text', 'text/plain'],
    ['a.md', Buffer.from('# Title'), 'markdown', 'text/markdown'],
    ['a.csv', Buffer.from('a,b\n1,2'), 'csv', 'text/csv'],
    ['a.html', Buffer.from('<!DOCTYPE html><html><body><p>x</p></body></html>'), 'html', 'text/html'],
    ['a.htm', Buffer.from('<p>fragment</p>'), 'html', 'text/html'],
    ['a.png', makePng(2, 2), 'image', 'image/png'],
    ['a.jpg', makeJpeg(2, 2), 'image', 'image/jpeg'],
    ['a.jpeg', makeJpeg(2, 2), 'image', 'image/jpeg'],
    ['a.gif', makeGif(2, 2), 'image', 'image/gif'],
    ['a.webp', makeWebp(2, 2), 'image', 'image/webp'],
    ['a.mp3', makeMp3(true), 'audio', 'audio/mpeg'],
    ['b.mp3', makeMp3(false), 'audio', 'audio/mpeg'],
    ['a.wav', makeWav(), 'audio', 'audio/wav'],
    ['a.m4a', makeIsoMedia('M4A ', ['M4A ', 'mp42', 'isom']), 'audio', 'audio/mp4'],
    ['a.ogg', makeOgg(), 'audio', 'audio/ogg'],
    ['a.mp4', makeIsoMedia('isom', ['isom', 'iso2', 'avc1', 'mp41']), 'video', 'video/mp4'],
    ['a.webm', makeWebm(), 'video', 'video/webm'],
    ['a.mov', makeIsoMedia('qt  ', ['qt  ']), 'video', 'video/quicktime'],
  ];

  it('covers exactly the supported extensions of the spec', () => {
    expect([...SUPPORTED_EXTENSIONS].sort()).toEqual(
      'pdf docx doc txt md csv html htm png jpg jpeg gif webp mp3 wav m4a ogg mp4 webm mov'.split(' ').sort(),
    );
    expect(new Set(samples().map(([name]) => fileExtension(name)))).toEqual(new Set(SUPPORTED_EXTENSIONS));
  });

  it('accepts each supported format with its own bytes, with no declared type or its canonical one', async () => {
    for (const [filename, bytes, kind, mimeType] of samples()) {
      expect(await detectFile({ filename, bytes })).toMatchObject({ kind, mimeType });
      expect(await detectFile({ filename, bytes, declaredMimeType: mimeType })).toMatchObject({ kind, mimeType });
      expect(await detectFile({ filename, bytes, declaredMimeType: 'application/octet-stream' })).toMatchObject({ kind });
      expect(await detectFile({ filename, bytes, declaredMimeType: '' })).toMatchObject({ kind });
    }
  });

  it('ignores extension case, MIME parameters and case, and common alias types', async () => {
    expect((await detectFile({ filename: 'REPORT.PDF', bytes: pdf, declaredMimeType: 'Application/PDF' })).kind).toBe('pdf');
    const html = Buffer.from('<html><body>x</body></html>');
    expect((await detectFile({ filename: 'p.html', bytes: html, declaredMimeType: 'text/html; charset=UTF-8' })).kind).toBe('html');
    expect((await detectFile({ filename: 'd.csv', bytes: Buffer.from('a;b'), declaredMimeType: 'application/vnd.ms-excel' })).kind).toBe(
      'csv',
    );
    expect((await detectFile({ filename: 'n.md', bytes: Buffer.from('x'), declaredMimeType: 'text/plain' })).kind).toBe('markdown');
    expect((await detectFile({ filename: 'v.mov', bytes: makeIsoMedia('qt  '), declaredMimeType: 'video/quicktime' })).kind).toBe('video');
  });

  it('accepts UTF-8 text with a byte-order mark, and classic QuickTime files without ftyp', async () => {
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('Grüße, 世界')]);
    expect((await detectFile({ filename: 'x.txt', bytes: bom })).kind).toBe('text');
    const classic = Buffer.concat([Buffer.from([0, 0, 0, 8]), Buffer.from('moov'), Buffer.alloc(8)]);
    expect((await detectFile({ filename: 'old.mov', bytes: classic })).kind).toBe('video');
  });
});

describe('detectFile: rejected files', () => {
  it('rejects unknown extensions with the extension in the message', async () => {
    const error = await rejection('setup.xyz', Buffer.from('x'));
    expect(error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect(error.message).toBe('Unsupported file type: .xyz');
    expect((await rejection('tool.EXE', Buffer.from('MZ'))).message).toBe('Unsupported file type: .exe');
    expect((await rejection('README', Buffer.from('x'))).message).toMatch(/has no extension/);
    expect((await rejection('.bashrc', Buffer.from('x'))).code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('rejects a declared MIME type that contradicts the extension', async () => {
    const error = await rejection('report.pdf', pdf, 'image/png');
    expect(error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect(error.message).toMatch(/declared type image\/png does not match the \.pdf extension/);
    expect((await rejection('notes.txt', Buffer.from('hello'), 'application/pdf')).code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('rejects an empty file as invalid', async () => {
    expect((await rejection('empty.txt', Buffer.alloc(0))).code).toBe('VALIDATION');
  });

  it('documents: PNG named .pdf, PDF named .docx, DOCX named .doc, other ZIP and OLE files', async () => {
    await expectMismatch('scan.pdf', makePng(1, 1), /PNG image/);
    await expectMismatch('scan.pdf', makePng(1, 1), /PNG image/, 'application/pdf');
    await expectMismatch('letter.docx', pdf, /PDF document/);
    await expectMismatch('letter.doc', docx, /\.docx/);
    await expectMismatch('letter.docx', makeWordDoc(['x']), /97-2003/);
    await expectMismatch('sheet.docx', makeZip({ '[Content_Types].xml': '<Types/>', 'xl/workbook.xml': '<workbook/>' }), /ZIP archive/);
    await expectMismatch('archive.docx', makeZip({ 'readme.txt': 'hi' }), /ZIP archive/);
    await expectMismatch('sheet.doc', makeOleFile('Workbook'), /OLE2 compound file/);
    await expectMismatch('broken.docx', Buffer.from('PK\u0003\u0004 truncated', 'latin1'));
  });

  it('text: PDF bytes named .txt, binary named .csv, Latin-1 text, NUL bytes, UTF-16, non-markup named .html', async () => {
    await expectMismatch('notes.txt', pdf, /PDF document/);
    await expectMismatch('ascii.txt', Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF'), /PDF document/);
    await expectMismatch('data.csv', makePng(2, 2), /PNG image/);
    await expectMismatch('data.csv', Buffer.from([0x01, 0x02, 0x00, 0xff, 0xfe, 0x80]), /binary data/);
    await expectMismatch('latin1.txt', Buffer.from('caf\xe9 cr\xe8me', 'latin1'));
    await expectMismatch('nul.md', Buffer.from('line one\u0000line two'));
    await expectMismatch('utf16.txt', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('hello', 'utf16le')]));
    await expectMismatch('page.html', Buffer.from('Just a sentence, no tags at all.'), /plain text/);
    await expectMismatch('page.htm', makeGif(1, 1), /GIF image/);
  });

  it('images: JPEG named .png, GIF named .webp, WAV named .webp, text named .jpg', async () => {
    await expectMismatch('photo.png', makeJpeg(1, 1), /JPEG image/);
    await expectMismatch('anim.webp', makeGif(1, 1), /GIF image/);
    await expectMismatch('fake.webp', makeWav(), /WAV audio/);
    await expectMismatch('photo.jpg', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"></svg>'));
    await expectMismatch('photo.gif', Buffer.from('GIF90a', 'latin1'));
  });

  it('audio: WEBP named .wav, AAC/ADTS named .mp3, text named .mp3, video brands named .m4a, WebM named .ogg', async () => {
    await expectMismatch('voice.wav', makeWebp(1, 1), /WebP image/);
    await expectMismatch('song.mp3', Buffer.from([0xff, 0xf1, 0x50, 0x80, 0x00, 0x1f, 0xfc]));
    await expectMismatch('song.mp3', Buffer.from('plain text, not audio'), /plain text/);
    await expectMismatch('voice.m4a', makeIsoMedia('qt  ', ['qt  ']), /ISO media file \(brand qt\)/);
    await expectMismatch('voice.ogg', makeWebm(), /WebM/);
  });

  it('video: HEIC named .mp4, Ogg named .webm, MP3 named .mov, PDF named .mp4', async () => {
    await expectMismatch('clip.mp4', makeIsoMedia('heic', ['mif1', 'heic']), /brand heic/);
    await expectMismatch('clip.webm', makeOgg(), /Ogg audio/);
    await expectMismatch('clip.mov', makeMp3(true), /MP3 audio/);
    await expectMismatch('clip.mp4', pdf, /PDF document/);
  });

  it('puts the detected shape in the error details', async () => {
    const error = await rejection('scan.pdf', makePng(1, 1), 'application/octet-stream');
    expect(error.details).toMatchObject({ filename: 'scan.pdf', expected: 'pdf', looksLike: 'a PNG image' });
  });
});

describe('describeBytes', () => {
  it('names common formats', async () => {
    expect(await describeBytes(makeWebm())).toMatch(/WebM/);
    expect(await describeBytes(Buffer.from('<html></html>'))).toBe('HTML markup');
    expect(await describeBytes(Buffer.from([0, 1, 2, 3]))).toBe('binary data');
  });
});
