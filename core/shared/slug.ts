/** URL-friendly slug: lower-case ASCII letters, digits and single dashes. */
export function slugify(text: string, maxLength = 48): string {
  const slug = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, maxLength)
    .replace(/-+$/g, '');
  return slug || 'item';
}

/** First free slug among base, base-2, base-3..., then a random suffix. */
export async function uniqueSlug(base: string, taken: (slug: string) => Promise<boolean>, random: () => string): Promise<string> {
  const root = slugify(base);
  if (!(await taken(root))) return root;
  for (let n = 2; n <= 20; n++) if (!(await taken(`${root}-${n}`))) return `${root}-${n}`;
  return `${root}-${slugify(random()).replace(/-/g, '').slice(0, 8) || 'x'}`;
}
