import { Argon2idPasswordHasher, OWASP_ARGON2ID } from './argon2id.password-hasher';
import { ScryptPasswordHasher } from './scrypt.password-hasher';

const cheap = { memoryCost: 1024, timeCost: 1, parallelism: 1 };
const hasher = new Argon2idPasswordHasher(cheap);

describe('Argon2idPasswordHasher', () => {
  it('writes a PHC Argon2id hash that verifies the right password only', async () => {
    const h = await hasher.hash('correct horse battery');
    expect(h).toMatch(/^\$argon2id\$v=19\$m=1024,t=1,p=1\$/);
    expect(await hasher.verify('correct horse battery', h)).toBe(true);
    expect(await hasher.verify('correct horse batterY', h)).toBe(false);
    expect(await hasher.hash('correct horse battery')).not.toBe(h); // salted
  });

  it('treats the NFKC forms of a password as the same password', async () => {
    const h = await hasher.hash('ﬁle'); // U+FB01 ligature
    expect(await hasher.verify('file', h)).toBe(true);
  });

  it('defaults to the OWASP parameters (m=19 MiB, t=2, p=1)', async () => {
    expect(OWASP_ARGON2ID).toEqual({ memoryCost: 19_456, timeCost: 2, parallelism: 1 });
    expect(await new Argon2idPasswordHasher().hash('x')).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  });

  it('verifies hashes written by the earlier scrypt hasher and asks for them to be replaced', async () => {
    const legacy = await new ScryptPasswordHasher({ N: 1024, r: 8, p: 1 }).hash('old password');
    expect(await hasher.verify('old password', legacy)).toBe(true);
    expect(await hasher.verify('other password', legacy)).toBe(false);
    expect(hasher.needsRehash(legacy)).toBe(true);
  });

  it('asks to replace Argon2id hashes weaker than its parameters, not equal or stronger ones', async () => {
    const weak = await hasher.hash('p');
    expect(hasher.needsRehash(weak)).toBe(false);
    expect(new Argon2idPasswordHasher({ ...cheap, memoryCost: 2048 }).needsRehash(weak)).toBe(true);
    expect(new Argon2idPasswordHasher({ ...cheap, timeCost: 2 }).needsRehash(weak)).toBe(true);
    expect(new Argon2idPasswordHasher({ ...cheap, memoryCost: 512 }).needsRehash(weak)).toBe(false);
  });

  it.each([
    ['', 'empty'],
    ['$argon2i$v=19$m=1024,t=1,p=1$c2FsdHNhbHQ$aGFzaA', 'argon2i'],
    ['$argon2id$garbage', 'garbage'],
    ['bcrypt$x', 'other scheme'],
  ])('refuses the stored hash %p (%s) without throwing', async (stored) => {
    expect(await hasher.verify('p', stored)).toBe(false);
    expect(hasher.needsRehash(stored)).toBe(true);
  });
});
