import { ScryptPasswordHasher } from '../../adapters/crypto/scrypt.password-hasher';
import { BOOT_TIMEOUT_MS, startTestPlatform, type TestPlatform } from '../support/platform';
import { registerUser } from '../support/users';

let p: TestPlatform;
beforeAll(async () => {
  p = await startTestPlatform();
}, BOOT_TIMEOUT_MS);
afterAll(() => p?.close(), BOOT_TIMEOUT_MS);

const storedHash = async (id: string) => (await p.store.repos.users.findById(id))!.passwordHash!;

describe('password hashes move from scrypt to Argon2id at sign-in', () => {
  it('new accounts get an Argon2id hash', async () => {
    const u = await registerUser(p.http, { label: 'argon' });
    expect(await storedHash(u.id)).toMatch(/^\$argon2id\$/);
  });

  it('an account still holding a scrypt hash signs in, and its hash is replaced by Argon2id', async () => {
    const u = await registerUser(p.http, { label: 'legacy' });
    const legacy = await new ScryptPasswordHasher({ N: 1024, r: 8, p: 1 }).hash(u.password);
    await p.store.repos.users.update(u.id, { passwordHash: legacy }, new Date().toISOString());

    const wrong = await p.http.post('/api/auth/login', { email: u.email, password: `${u.password}x` });
    expect(wrong.status).toBe(401);
    expect(await storedHash(u.id)).toBe(legacy); // a failed attempt changes nothing

    expect((await p.http.post('/api/auth/login', { email: u.email, password: u.password })).status).toBe(200);
    const upgraded = await storedHash(u.id);
    expect(upgraded).toMatch(/^\$argon2id\$/);
    expect((await p.http.post('/api/auth/login', { email: u.email, password: u.password })).status).toBe(200);
    expect(await storedHash(u.id)).toBe(upgraded); // current hashes are left alone
  });
});
