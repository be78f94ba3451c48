import type { Request, Response } from 'express';

/**
 * The `access_token` cookie browsers use as a fallback to the bearer header (spec 5.1): HttpOnly (no script
 * reads it), SameSite=Lax (not sent on cross-site POSTs; the gateway also checks Origin), Secure when the
 * client reached the gateway over TLS, and no longer-lived than the token.
 */
export function setSessionCookie(req: Request, res: Response, accessToken: string, maxAgeSeconds: number): void {
  const tls = req.headers['x-forwarded-proto'] === 'https';
  res.cookie('access_token', accessToken, {
    httpOnly: true,
    sameSite: 'lax',
    secure: tls,
    path: '/',
    maxAge: maxAgeSeconds * 1000,
  });
}
