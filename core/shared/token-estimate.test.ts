import { estimateTokens } from './token-estimate';

describe('estimateTokens', () => {
  it('approximates BPE token counts for prose', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('the')).toBe(1);
    expect(estimateTokens('Hello, world!')).toBe(4);
    expect(estimateTokens('The quick brown fox jumps over the lazy dog.')).toBe(10);
    expect(estimateTokens('internationalization')).toBe(4);
    expect(estimateTokens("don't")).toBe(1);
  });

  it('counts digits in groups of three, CJK characters and emoji one each', () => {
    expect(estimateTokens('2024')).toBe(2);
    expect(estimateTokens('東京タワー')).toBe(5);
    expect(estimateTokens('😀😀')).toBe(2);
  });

  it('ignores whitespace and grows with the text', () => {
    expect(estimateTokens('a  \n\t b')).toBe(2);
    const text = 'Refunds for annual plans are processed within 14 days. ';
    expect(estimateTokens(text.repeat(10))).toBe(10 * estimateTokens(text));
  });
});
