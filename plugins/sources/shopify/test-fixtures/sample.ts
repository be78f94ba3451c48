import { html, json, para, type SourceSample } from '../../../../test/conformance/source-sample';

const product = (id: number, price: string) => ({
  id,
  title: `Product ${id}`,
  handle: `product-${id}`,
  body_html: `<p>Description of product ${id}.</p>`,
  vendor: 'Fixture Apparel',
  variants: [{ id: 1, title: 'Default Title', price, available: true }],
});

/** A two-product catalogue and an about page. */
const sample: SourceSample = {
  url: 'https://fixture.myshopify.com',
  options: { maxPages: 2 },
  upstream({ host, path, query }, revision) {
    if (host !== 'fixture.myshopify.com') return undefined;
    if (path === '/products.json') return json({ products: query.get('page') === '1' ? [product(1, '10.00'), product(2, revision === 1 ? '20.00' : '25.00')] : [] });
    if (path === '/') return html('Fixture store', `<h1>Fixture store</h1>${para('Homepage')}<a href="/pages/about">About us</a>`);
    if (path === '/pages/about') return html('About', `<h1>About us</h1>${para('Our story')}`);
    return undefined;
  },
};
export default sample;
