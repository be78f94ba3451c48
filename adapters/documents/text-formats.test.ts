import { DomainError } from '../../core/shared/errors';
import { detectDelimiter, parseCsv } from './csv.loader';
import { markdownToText } from './markdown-text';
import { MultiFormatDocumentLoader } from './multi-format.document-loader';

const loader = new MultiFormatDocumentLoader();
const load = (filename: string, content: string | Buffer) =>
  loader.load({ filename, bytes: typeof content === 'string' ? Buffer.from(content, 'utf8') : content });

async function failure(promise: Promise<unknown>): Promise<DomainError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DomainError);
  return error as DomainError;
}

describe('plain text', () => {
  it('strips the BOM and normalises line endings and spaces', async () => {
    const doc = await load(
      'notes.txt',
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('Line  one\r\n\r\n\r\nLine\ttwo — ünïcode 世界\r\n')]),
    );
    expect(doc).toMatchObject({ text: 'Line one\n\nLine two — ünïcode 世界', mimeType: 'text/plain', images: [] });
    expect(doc.metadata).toMatchObject({ format: 'txt', extension: 'txt', sizeBytes: expect.any(Number) });
  });

  it('fails a whitespace-only file with No extractable text', async () => {
    const error = await failure(load('blank.txt', '  \n\n \t '));
    expect(error.code).toBe('VALIDATION');
    expect(error.message).toMatch(/^No extractable text in "blank.txt"/);
  });
});

describe('markdown', () => {
  const source = [
    '---',
    'title: "Handbook"',
    'tags: [a, b]',
    '---',
    '# Welcome to **Acme**',
    '',
    'Read the [onboarding guide](https://intranet.example.com/guide "Guide") and the [FAQ][faq].',
    '![Org chart](images/org-chart.png) ![](spacer.gif)',
    '',
    '* First _item_ with `code` and snake_case_name',
    '+ Second ~~old~~ item',
    '1. Numbered',
    '',
    '> Quoted *wisdom*.',
    '',
    '| Name | Role |',
    '| --- | :---: |',
    '| Ada | Engineer |',
    '',
    '```ts',
    'const x = [1, 2];',
    '```',
    '',
    '***',
    'See <https://example.com/raw> and a footnote[^1].<br/>',
    '',
    '[faq]: https://example.com/faq',
    '<!-- hidden comment -->',
  ].join('\n');

  it('keeps the words, drops link URLs and syntax noise, and lists images', () => {
    const { text, title, images } = markdownToText(source);
    expect(title).toBe('Handbook');
    expect(text).toBe(
      [
        'Welcome to Acme',
        '',
        'Read the onboarding guide and the FAQ.',
        'Org chart ',
        '',
        '- First item with code and snake_case_name',
        '- Second old item',
        '1. Numbered',
        '',
        'Quoted wisdom.',
        '',
        'Name | Role',
        'Ada | Engineer',
        '',
        'const x = [1, 2];',
        '',
        'See https://example.com/raw and a footnote.',
      ].join('\n'),
    );
    expect(images).toEqual([{ src: 'images/org-chart.png', alt: 'Org chart' }, { src: 'spacer.gif' }]);
    expect(text).not.toMatch(/intranet|https:\/\/example.com\/faq|\]\(|!\[|\*\*|```|---/);
  });

  it('takes the first level-1 heading as the title without front matter, also in setext style', () => {
    expect(markdownToText('Intro text\n\n## Sub\n\n# Main *title*\n').title).toBe('Main title');
    expect(markdownToText('Main Title\n==========\n\nBody').title).toBe('Main Title');
    expect(markdownToText('Main Title\n==========\n\nBody').text).toBe('Main Title\n\nBody');
  });

  it('loads through the document loader with title and image references', async () => {
    const doc = await load('handbook.md', source);
    expect(doc.mimeType).toBe('text/markdown');
    expect(doc.title).toBe('Handbook');
    expect(doc.text).toMatch(/^Welcome to Acme\n\nRead the onboarding guide and the FAQ\.\nOrg chart\n\n- First item/);
    expect(doc.images).toEqual([
      { ref: 'images/org-chart.png', mimeType: 'image/png', description: 'Org chart' },
      { ref: 'spacer.gif', mimeType: 'image/gif' },
    ]);
  });
});

describe('csv', () => {
  it('parses quoted fields with delimiters, doubled quotes and line breaks, CRLF and blank lines', () => {
    const source = 'name,comment,amount\r\n"Smith, John","He said ""hi""\nthen left",12.50\r\n\r\nDoe, "plain" ,7\r\n';
    expect(parseCsv(source)).toEqual([
      ['name', 'comment', 'amount'],
      ['Smith, John', 'He said "hi"\nthen left', '12.50'],
      ['Doe', 'plain', '7'],
    ]);
  });

  it('guesses the delimiter from the header line, ignoring quoted ones', () => {
    expect(detectDelimiter('a;b;c\n1,5;2,5;3')).toBe(';');
    expect(detectDelimiter('a\tb\n1\t2')).toBe('\t');
    expect(detectDelimiter('"x;y",b,c\n')).toBe(',');
    expect(detectDelimiter('single')).toBe(',');
  });

  it('renders each row as header: value pairs, skipping empty values and naming unnamed columns', async () => {
    const source = 'Product;Price;;Notes\nWidget;"9,99";extra;\nGadget;;;"Fragile; handle with care"\n;;;\n';
    const doc = await load('prices.csv', source);
    expect(doc.mimeType).toBe('text/csv');
    expect(doc.text).toBe('Product: Widget; Price: 9,99; column 3: extra\nProduct: Gadget; Notes: Fragile; handle with care');
    expect(doc.metadata).toMatchObject({ delimiter: ';', columns: ['Product', 'Price', 'column 3', 'Notes'], rowCount: 2 });
  });

  it('renders the column names of a header-only file, and fails an empty one', async () => {
    expect((await load('empty-table.csv', 'id,name\n')).text).toBe('Columns: id; name');
    expect((await failure(load('nothing.csv', '\n\n'))).message).toMatch(/^No extractable text/);
  });
});

describe('html', () => {
  const page = `<!DOCTYPE html>
<html lang="en"><head><title> Pricing &amp; Plans | Acme </title>
<style>.x{color:red}</style><script>var tracking = "should not appear";</script></head>
<body>
  <header class="site-header"><a href="/">Acme home</a><nav><a href="/a">Products</a><a href="/b">About</a></nav></header>
  <div id="cookie-banner">We use cookies. <button>Accept all</button></div>
  <aside class="sidebar">Popular posts: ten tips</aside>
  <main>
    <article>
      <header><h1>Plans for every team</h1><p class="byline">By Ada</p></header>
      <p>Our <b>Starter</b> plan costs   10 EUR
      per month.</p>
      <h2>Enterprise</h2>
      <p>Contact sales for SSO &amp; audit logs.<br>Volume discounts apply.</p>
      <ul><li>Unlimited agents</li><li>Priority support<ul><li>24/7 phone</li></ul></li></ul>
      <ol start="3"><li>Third</li><li>Fourth</li></ol>
      <table><tr><th>Plan</th><th>Seats</th><th>Note</th></tr><tr><td><p>Starter</p></td><td></td><td>5</td></tr></table>
      <img src="/img/chart.png" alt="Price chart"><img src="data:image/gif;base64,R0lGODlh" alt="">
      <form><label>Email</label><input name="e"><button>Subscribe</button></form>
      <noscript>Enable JavaScript</noscript>
    </article>
  </main>
  <footer>© 2024 Acme · Imprint</footer>
</body></html>`;

  it('keeps the main content with headings and paragraphs on separate lines and drops the chrome', async () => {
    const doc = await load('pricing.html', page);
    expect(doc.mimeType).toBe('text/html');
    expect(doc.title).toBe('Pricing & Plans | Acme');
    expect(doc.text).toBe(
      [
        'Plans for every team',
        '',
        'By Ada',
        '',
        'Our Starter plan costs 10 EUR per month.',
        '',
        'Enterprise',
        '',
        'Contact sales for SSO & audit logs.',
        'Volume discounts apply.',
        '',
        '- Unlimited agents',
        '- Priority support',
        '- 24/7 phone',
        '',
        '3. Third',
        '4. Fourth',
        '',
        'Plan | Seats | Note',
        'Starter | | 5',
      ].join('\n'),
    );
    expect(doc.text).not.toMatch(/cookies|Products|Popular posts|tracking|Subscribe|Enable JavaScript|Imprint|Acme home/);
    expect(doc.images).toEqual([
      { ref: '/img/chart.png', mimeType: 'image/png', description: 'Price chart' },
      { ref: 'inline-image-2', mimeType: 'image/gif' },
    ]);
    expect(doc.metadata).toMatchObject({ contentRoot: 'main', language: 'en' });
  });

  it('without main or article, picks the densest block of paragraphs and takes the title from h1', async () => {
    const filler = 'This paragraph carries the actual story of the page with enough words to count.';
    const html = `<body><div class="menu"><p>Home</p><p>Blog</p><p>Contact</p></div>
      <div class="promo"><p>Buy now and save a lot of money today on everything!</p></div>
      <div class="content"><h1>The story</h1><p>${filler}</p><p>${filler}</p><p>${filler}</p></div></body>`;
    const doc = await load('story.htm', html);
    expect(doc.title).toBe('The story');
    expect(doc.metadata).toMatchObject({ contentRoot: 'densest' });
    expect(doc.text).toBe(`The story\n\n${filler}\n\n${filler}\n\n${filler}`);
  });

  it('keeps every teaser of a listing page rather than one article', async () => {
    const html = '<body><article><h2>First post</h2><p>One.</p></article><article><h2>Second post</h2><p>Two.</p></article></body>';
    const doc = await load('list.html', html);
    expect(doc.text).toBe('First post\n\nOne.\n\nSecond post\n\nTwo.');
  });

  it('fails a page that is all chrome with No extractable text', async () => {
    const html = '<html><head><title>Empty</title><script>x()</script></head><body><nav>Menu</nav><footer>Footer</footer></body></html>';
    const error = await failure(load('chrome.html', html));
    expect(error.code).toBe('VALIDATION');
    expect(error.message).toMatch(/^No extractable text in "chrome.html"/);
  });
});
