/**
 * Rough token count for a text, close to BPE tokenizers (cl100k / o200k) on ordinary prose:
 * - a word of ASCII letters is one token per started 6 letters ("the" 1, "knowledge" 2);
 *   other alphabetic scripts (accented Latin, Cyrillic, Greek...) count 3 letters per token;
 * - digits count in groups of three ("2024" is 2);
 * - each punctuation mark or symbol is one token;
 * - each CJK ideograph, kana or hangul syllable is one token; each emoji (surrogate pair) one.
 * Pure and allocation-free: used by the local provider and wherever a provider reports no usage.
 */
export function estimateTokens(text: string): number {
  if (!text) return 0;
  let tokens = 0;
  let ascii = 0; // ASCII letters of the current word
  let other = 0; // other letters of the current word
  let digits = 0; // digits of the current number
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 128) {
      if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90)) {
        if (digits) {
          tokens += numberTokens(digits);
          digits = 0;
        }
        ascii++;
      } else if (c >= 48 && c <= 57) {
        if (ascii || other) {
          tokens += wordTokens(ascii, other);
          ascii = other = 0;
        }
        digits++;
      } else if (c === 39 && (ascii || other)) {
        ascii++; // apostrophe inside a word ("don't", "it's") stays in the word
      } else {
        if (ascii || other) {
          tokens += wordTokens(ascii, other);
          ascii = other = 0;
        }
        if (digits) {
          tokens += numberTokens(digits);
          digits = 0;
        }
        if (c > 32 && c !== 127) tokens++; // punctuation; spaces and controls count nothing
      }
      continue;
    }
    const letter = !isDense(c) && !(c >= 0xd800 && c <= 0xdbff) && !isSpace(c) && !isPunctuation(c);
    if (letter) {
      if (digits) {
        tokens += numberTokens(digits);
        digits = 0;
      }
      other++;
      continue;
    }
    if (ascii || other) {
      tokens += wordTokens(ascii, other);
      ascii = other = 0;
    }
    if (digits) {
      tokens += numberTokens(digits);
      digits = 0;
    }
    if (isSpace(c)) continue;
    tokens++; // ideograph, kana, hangul, punctuation, or an astral symbol (emoji)
    if (c >= 0xd800 && c <= 0xdbff) i++; // skip the low surrogate
  }
  if (ascii || other) tokens += wordTokens(ascii, other);
  if (digits) tokens += numberTokens(digits);
  return tokens;
}

function wordTokens(ascii: number, other: number): number {
  return Math.max(1, Math.ceil(ascii / 6 + other / 3));
}

function numberTokens(digits: number): number {
  return Math.ceil(digits / 3);
}

function isDense(c: number): boolean {
  return (
    (c >= 0x3040 && c <= 0x30ff) || // hiragana, katakana
    (c >= 0x3400 && c <= 0x4dbf) || // CJK extension A
    (c >= 0x4e00 && c <= 0x9fff) || // CJK unified ideographs
    (c >= 0xac00 && c <= 0xd7af) || // hangul syllables
    (c >= 0xf900 && c <= 0xfaff) // CJK compatibility ideographs
  );
}

function isSpace(c: number): boolean {
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200b) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

function isPunctuation(c: number): boolean {
  return (
    (c >= 0x2010 && c <= 0x2027) || // dashes, quotes, bullets, ellipsis
    (c >= 0x2030 && c <= 0x206f) ||
    (c >= 0x20a0 && c <= 0x20cf) || // currency
    (c >= 0x2190 && c <= 0x2bff) || // arrows, maths, box drawing, shapes, dingbats
    (c >= 0x3000 && c <= 0x303f) || // CJK punctuation
    (c >= 0xff01 && c <= 0xff0f) ||
    c === 0xa1 ||
    c === 0xa7 ||
    c === 0xab ||
    c === 0xb0 ||
    c === 0xb6 ||
    c === 0xb7 ||
    c === 0xbb ||
    c === 0xbf ||
    c === 0xd7 ||
    c === 0xf7
  );
}
