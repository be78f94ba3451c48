/**
 * Login cost of the password hashers: the scrypt hasher the platform used before (N=2^15, r=8, p=1, the
 * baseline) against Argon2id with the OWASP parameters (m=19 MiB, t=2, p=1). A login verifies one hash, so the
 * figure that matters is verify latency, alone and with logins arriving concurrently on 2 cores.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';

import { Argon2idPasswordHasher } from '../adapters/crypto/argon2id.password-hasher';
import { ScryptPasswordHasher } from '../adapters/crypto/scrypt.password-hasher';
import type { PasswordHasher } from '../core/identity/password-hasher';

const SEQUENTIAL = 30;
const CONCURRENT = 4;
const CONCURRENT_ROUNDS = 10;
const PASSWORD = 'correct horse battery staple';

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
const round = (n: number) => Math.round(n * 10) / 10;

async function measure(hasher: PasswordHasher) {
  const stored = await hasher.hash(PASSWORD);
  await hasher.verify(PASSWORD, stored); // warm-up
  const times: number[] = [];
  for (let i = 0; i < SEQUENTIAL; i++) {
    const t0 = performance.now();
    if (!(await hasher.verify(PASSWORD, stored))) throw new Error('verify failed');
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  const t0 = performance.now();
  for (let r = 0; r < CONCURRENT_ROUNDS; r++) {
    await Promise.all(Array.from({ length: CONCURRENT }, () => hasher.verify(PASSWORD, stored)));
  }
  const concurrentSeconds = (performance.now() - t0) / 1000;
  const h0 = performance.now();
  await hasher.hash(PASSWORD);
  return {
    verifyMedianMs: round(percentile(times, 0.5)),
    verifyP95Ms: round(percentile(times, 0.95)),
    loginsPerSecondAt4Concurrent: round((CONCURRENT * CONCURRENT_ROUNDS) / concurrentSeconds),
    hashMs: round(performance.now() - h0),
    hashLength: stored.length,
  };
}

async function main() {
  const started = Date.now();
  const scrypt = await measure(new ScryptPasswordHasher());
  const argon2id = await measure(new Argon2idPasswordHasher());
  return {
    date: new Date().toISOString(),
    totalSeconds: Math.round((Date.now() - started) / 1000),
    machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version, loadAverage: loadavg().map(round) },
    setup: {
      baseline: 'scrypt N=2^15 r=8 p=1 (32 MiB), node:crypto',
      candidate: 'Argon2id m=19456 KiB t=2 p=1 (OWASP), @node-rs/argon2',
      sequentialVerifies: SEQUENTIAL,
      concurrentVerifies: CONCURRENT * CONCURRENT_ROUNDS,
    },
    scrypt,
    argon2id,
    ratios: {
      verifyMedianArgon2idOverScrypt: round(argon2id.verifyMedianMs / scrypt.verifyMedianMs),
      throughputArgon2idOverScrypt: round(argon2id.loginsPerSecondAt4Concurrent / scrypt.loginsPerSecondAt4Concurrent),
    },
  };
}

main()
  .then((result) => {
    mkdirSync(join(__dirname, 'results'), { recursive: true });
    writeFileSync(join(__dirname, 'results', 'password-hashing.json'), `${JSON.stringify(result, null, 2)}\n`);
    console.log(JSON.stringify(result, null, 2));
  })
  .catch((e) => {
    console.error(e);
    process.exit(1);
  });
