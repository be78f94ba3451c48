/**
 * The PDF stream filters that unpack (FlateDecode, LZWDecode, RunLengthDecode, ASCIIHexDecode, ASCII85Decode),
 * decoded with a cap on each one's output, so a filter chain (`/Filter [/ASCIIHexDecode /FlateDecode]`) is
 * measured like a plain FlateDecode stream: every stage stops one byte past the cap instead of unpacking whole.
 * Image codecs (DCT, JPX, JBIG2, CCITT) and encryption end the chain: the text layer never unpacks them, and
 * their output is not measured here.
 */
import { inflateSync } from 'node:zlib';

/** A stage unpacked past the cap it was given. */
export class FilterOutputTooLarge extends Error {
  constructor(readonly filter: string) {
    super(`${filter} output over the cap`);
  }
}

type Decoder = (data: Buffer, cap: number) => Buffer;

/** Full names and the abbreviations inline images use (pdf.js accepts both). */
const DECODERS: Record<string, Decoder> = {
  FlateDecode: flate,
  Fl: flate,
  LZWDecode: lzw,
  LZW: lzw,
  RunLengthDecode: runLength,
  RL: runLength,
  ASCIIHexDecode: asciiHex,
  AHx: asciiHex,
  ASCII85Decode: ascii85,
  A85: ascii85,
};

export const isUnpackingFilter = (name: string) => name in DECODERS;

/** One unpacking filter over `data`, its output capped at `cap` bytes (FilterOutputTooLarge past it). */
export function decodeStage(filter: string, data: Buffer, cap: number): Buffer {
  const decode = DECODERS[filter];
  if (!decode) throw new Error(`${filter} is not an unpacking filter`);
  const out = decode(data, cap);
  if (out.length > cap) throw new FilterOutputTooLarge(filter);
  return out;
}

/**
 * The filter names of a stream dictionary's `/Filter` (a name or an array of names), or null when there is none
 * or it is not written in place (an indirect reference: the worker's time and memory bounds cover those).
 */
export function filtersOf(dictionary: string): string[] | null {
  const m = /\/Filter\s*(\[[^\]]*\]|\/[^\s/[\]<>()]+)/.exec(dictionary);
  if (!m) return null;
  return [...m[1].matchAll(/\/([^\s/[\]<>()]+)/g)].map((n) => n[1]);
}

/**
 * Runs the unpacking filters of `filters` in order over `data`, each stage's output capped at `cap` bytes;
 * `count` is told every stage's output size (the caller's budget). Returns false when a stage's data is not
 * valid for its filter (the parser reports it), true otherwise; throws FilterOutputTooLarge past the cap.
 */
export function decodeChain(data: Buffer, filters: string[], cap: () => number, count: (filter: string, bytes: number) => void): boolean {
  let current = data;
  for (const filter of filters) {
    const decode = DECODERS[filter];
    if (!decode) return true; // an image codec or Crypt: the text layer stops here
    const limit = cap();
    let out: Buffer;
    try {
      out = decode(current, limit);
    } catch (error) {
      if (error instanceof FilterOutputTooLarge) throw error;
      return false;
    }
    if (out.length > limit) throw new FilterOutputTooLarge(filter);
    count(filter, out.length);
    current = out;
  }
  return true;
}

function flate(data: Buffer, cap: number): Buffer {
  try {
    // one byte over the cap tells "exactly the cap" from "more"
    return inflateSync(data, { maxOutputLength: cap + 1 });
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw new FilterOutputTooLarge('FlateDecode');
    throw error;
  }
}

/** Growable output that refuses to pass `cap` bytes. */
class Output {
  private buffer: Buffer;
  length = 0;
  constructor(
    private readonly cap: number,
    private readonly filter: string,
    initial: number,
  ) {
    this.buffer = Buffer.allocUnsafe(Math.max(16, Math.min(initial, cap + 1)));
  }

  private room(n: number): void {
    if (this.length + n > this.cap) throw new FilterOutputTooLarge(this.filter);
    if (this.length + n <= this.buffer.length) return;
    const next = Buffer.allocUnsafe(Math.min(this.cap + 1, Math.max(this.length + n, this.buffer.length * 2)));
    this.buffer.copy(next, 0, 0, this.length);
    this.buffer = next;
  }

  push(byte: number): void {
    this.room(1);
    this.buffer[this.length++] = byte;
  }

  fill(byte: number, n: number): void {
    this.room(n);
    this.buffer.fill(byte, this.length, this.length + n);
    this.length += n;
  }

  copy(from: Buffer | Uint8Array, start: number, end: number): void {
    this.room(end - start);
    this.buffer.set(from.subarray(start, end), this.length);
    this.length += end - start;
  }

  /** Repeats bytes already written (LZW's codes point back into the output). */
  copyWithin(start: number, end: number): void {
    this.room(end - start);
    this.buffer.copyWithin(this.length, start, end);
    this.length += end - start;
  }

  get bytes(): Buffer {
    return this.buffer.subarray(0, this.length);
  }
}

const isWhite = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || c === 0x0c || c === 0x00;

function asciiHex(data: Buffer, cap: number): Buffer {
  const out = new Output(cap, 'ASCIIHexDecode', data.length / 2);
  let high = -1;
  for (const c of data) {
    if (c === 0x3e) break; // '>' ends the data
    if (isWhite(c)) continue;
    const v = c >= 0x30 && c <= 0x39 ? c - 0x30 : (c | 0x20) >= 0x61 && (c | 0x20) <= 0x66 ? (c | 0x20) - 0x57 : -1;
    if (v < 0) throw new Error('not hexadecimal');
    if (high < 0) high = v;
    else {
      out.push((high << 4) | v);
      high = -1;
    }
  }
  if (high >= 0) out.push(high << 4);
  return out.bytes;
}

function ascii85(data: Buffer, cap: number): Buffer {
  const out = new Output(cap, 'ASCII85Decode', data.length);
  const group: number[] = [];
  const flush = (n: number) => {
    let value = 0;
    for (let i = 0; i < 5; i++) value = value * 85 + (group[i] ?? 84);
    for (let i = 0; i < n - 1; i++) out.push((value >>> (24 - 8 * i)) & 0xff);
    group.length = 0;
  };
  for (let i = 0; i < data.length; i++) {
    const c = data[i];
    if (c === 0x7e) break; // '~>' ends the data
    if (isWhite(c)) continue;
    if (c === 0x7a && group.length === 0) {
      out.fill(0, 4); // 'z': four zero bytes
      continue;
    }
    if (c < 0x21 || c > 0x75) throw new Error('not ASCII85');
    group.push(c - 0x21);
    if (group.length === 5) flush(5);
  }
  if (group.length > 1) flush(group.length);
  return out.bytes;
}

function runLength(data: Buffer, cap: number): Buffer {
  const out = new Output(cap, 'RunLengthDecode', data.length * 2);
  let i = 0;
  while (i < data.length) {
    const n = data[i++];
    if (n === 128) break; // end of data
    if (n < 128) {
      const end = Math.min(data.length, i + n + 1);
      out.copy(data, i, end);
      i = end;
    } else if (i < data.length) {
      out.fill(data[i++], 257 - n);
    }
  }
  return out.bytes;
}

/** LZW as PDF writes it: 9 to 12-bit codes, 256 clears, 257 ends, EarlyChange 1 (the default). */
function lzw(data: Buffer, cap: number): Buffer {
  const out = new Output(cap, 'LZWDecode', data.length * 4);
  // a table entry is a span of the output already written: where it starts and how long it is
  const starts = new Int32Array(4096);
  const lengths = new Int32Array(4096);
  let next = 258;
  let width = 9;
  /** The span of the string the previous code wrote; -1: none since a clear. */
  let previousStart = -1;
  let previousLength = 0;
  let bits = 0;
  let held = 0;
  for (const byte of data) {
    held = ((held << 8) | byte) & 0xffffff;
    bits += 8;
    while (bits >= width) {
      bits -= width;
      const code = (held >>> bits) & ((1 << width) - 1);
      if (code === 256) {
        next = 258;
        width = 9;
        previousStart = -1;
        continue;
      }
      if (code === 257) return out.bytes;
      const start = out.length;
      if (code < 256) out.push(code);
      else if (previousStart < 0) throw new Error('bad LZW code');
      else if (code < next) out.copyWithin(starts[code], starts[code] + lengths[code]);
      else if (code === next) {
        // the entry being defined: the previous string and its own first byte
        out.copyWithin(previousStart, previousStart + previousLength);
        out.push(out.bytes[previousStart]);
      } else throw new Error('bad LZW code');
      if (previousStart >= 0 && next < 4096) {
        // the previous string and the first byte of this one: contiguous in the output
        starts[next] = previousStart;
        lengths[next] = previousLength + 1;
        next++;
        if (next + 1 >= 1 << width && width < 12) width++;
      }
      previousStart = start;
      previousLength = out.length - start;
    }
  }
  return out.bytes;
}
