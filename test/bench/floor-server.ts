import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import express from 'express';
import { createRemoteJWKSet, jwtVerify, SignJWT } from 'jose';
import pg from 'pg';
import { loadConfig } from '../../src/config';
import { createObjectStore } from '../../src/infra/object-store';
import { ContentMeter } from '../../src/kernel/content';

/**
 * The floor the service is measured against, in the same run: the least work that answers the
 * same question. It verifies the same JWT with jose and reads the same row with one query.
 */
const { ISLET_URL, DATABASE_URL, PORT } = process.env;
const realm = 'dev1';
const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 10 });
const keys = createRemoteJWKSet(new URL(`${ISLET_URL}/realms/${realm}/protocol/openid-connect/certs`));

const app = express();
app.get('/healthz', (_req, res) => {
  res.json({ status: 'ok' });
});
/** The same JWT checks as the service; `cached` remembers a verified token until it expires, as the service does. */
const verified = new Map<string, { sub?: string; exp?: number }>();
async function verify(token: string, cached: boolean) {
  const known = cached ? verified.get(token) : undefined;
  if (known && (known.exp ?? 0) * 1000 > Date.now()) return known;
  const { payload } = await jwtVerify(token, keys, {
    issuer: `${ISLET_URL}/realms/${realm}`,
    audience: 'islet-api',
    typ: 'at+jwt',
  });
  if (cached) verified.set(token, payload);
  return payload;
}
app.get('/floor/user', async (req, res) => {
  try {
    const token = String(req.headers['x-tidepool-session-token']);
    const payload = await verify(token, req.query.cached === '1');
    const { rows } = await pool.query('select id, username, emails, roles, email_verified from users where id = $1', [
      payload.sub,
    ]);
    res.json({
      userid: rows[0].id,
      username: rows[0].username,
      emails: rows[0].emails,
      emailVerified: rows[0].email_verified,
    });
  } catch {
    res.status(401).json({ code: 401 });
  }
});
// The token floor: sign an access token like the realm's (RS256, 2048-bit key) and answer it.
const signingKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
app.post('/floor/sign', async (_req, res) => {
  const now = Math.floor(Date.now() / 1000);
  const accessToken = await new SignJWT({
    client_id: 'bench-backend',
    scope: 'openid',
    realm_access: { roles: ['backend_service'] },
  })
    .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: 'floor' })
    .setJti(randomBytes(24).toString('base64url'))
    .setSubject('bench-backend')
    .setIssuer(`${ISLET_URL}/realms/${realm}`)
    .setAudience('islet-api')
    .setIssuedAt(now)
    .setExpirationTime(now + 300)
    .sign(signingKey);
  res.json({ access_token: accessToken, expires_in: 300, token_type: 'Bearer' });
});
// The content floor over HTTP: the body through the meter into the service's own store, and back.
// It hands the store what the service hands it: the declared length and the client's digest.
const config = loadConfig(process.env);
const store = createObjectStore(config);
app.post('/floor/blobs/:name', async (req, res) => {
  const digest = req.get('digest')?.replace(/^md5=/i, '');
  const size = Number(req.get('content-length'));
  // Hashes only where the store does not check the digest itself, as the service does.
  const checkedByStore = store.checksDigest({ size, md5: digest });
  const meter = req.pipe(
    new ContentMeter({
      limit: config.contentSizeLimitBytes,
      digestCheckedByStore: checkedByStore ? digest : undefined,
    }),
  );
  await store.put(`bench-http-floor/${req.params.name}`, meter, {
    contentType: 'application/octet-stream',
    size,
    md5: digest,
  });
  const { digestMD5 } = meter.facts();
  if (digest !== undefined && digest !== digestMD5) res.status(400).json({ digestMD5 });
  else res.status(201).json({ digestMD5 });
});
app.get('/floor/blobs/:name', async (req, res) => {
  await pipeline(await store.get(`bench-http-floor/${req.params.name}`), res);
});
app.listen(Number(PORT), '127.0.0.1');
