import { TitleMatcher } from './title-match';

describe('TitleMatcher', () => {
  it('scores half for the share of title words in the query and half for the whole title in a row', () => {
    const m = new TitleMatcher('What is pg for and how do I use it?');
    expect(m.score('pg')).toBe(1);
    expect(m.score('pg-pool')).toBe(0.25);
    expect(m.score('@eslint/js')).toBe(0);
    expect(new TitleMatcher('What is js for?').score('@eslint/js')).toBe(0.25);
    expect(new TitleMatcher('how does @eslint/js work').score('@eslint/js')).toBe(1);
  });

  it('ignores case and accents, and titles or queries of function words only', () => {
    expect(new TitleMatcher('Café Guide').score('cafe guide')).toBe(1);
    expect(new TitleMatcher('what is it').score('is')).toBe(0);
    expect(new TitleMatcher('the and of').score('The Guide')).toBe(0);
    expect(new TitleMatcher('guide').score('')).toBe(0);
    expect(new TitleMatcher('guide').score(undefined)).toBe(0);
  });
});
