import { randomBytes } from 'node:crypto';
import { SERVER_SECRET, type BenchEnvironment } from '../setup';

export interface SeededUser {
  userid: string;
  email: string;
  password: string;
  token: string;
}

async function json(response: Response) {
  if (!response.ok) throw new Error(`${response.url} answered ${response.status}: ${await response.text()}`);
  return { body: (await response.json().catch(() => undefined)) as Record<string, string>, headers: response.headers };
}

export async function signUpUser(env: Pick<BenchEnvironment, 'app'>, prefix: string): Promise<SeededUser> {
  const email = `${prefix}.${randomBytes(5).toString('hex')}@example.org`;
  const password = `pw-${randomBytes(8).toString('hex')}`;
  const { body, headers } = await json(
    await fetch(`${env.app.url}/auth/user`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: email, emails: [email], password }),
    }),
  );
  return { userid: body.userid, email, password, token: headers.get('x-tidepool-session-token')! };
}

export async function serverLogin(env: BenchEnvironment): Promise<string> {
  const { headers } = await json(
    await fetch(`${env.app.url}/auth/serverlogin`, {
      method: 'POST',
      headers: { 'x-tidepool-server-name': 'bench', 'x-tidepool-server-secret': SERVER_SECRET },
    }),
  );
  return headers.get('x-tidepool-session-token')!;
}
