import type { UsersService } from '../domains/users/users.service';
import type { LoginGuard } from './login-guard';
import type { SessionsService } from './sessions.service';

/**
 * What auth adds to account changes: the current password an account change needs is checked
 * like a login (guesses count towards lockouts), and a new password ends every other session
 * and refresh token of the account, on every instance.
 */
export function protectAccountChanges({
  users,
  sessions,
  guard,
}: {
  users: UsersService;
  sessions: SessionsService;
  guard: LoginGuard;
}): void {
  users.guardPasswordChecks((loginName, source, check) => guard.confirm(loginName, source, 'current_password', check));
  users.onPasswordChanged((userId, by) => sessions.endOtherSessionsOf(userId, by));
}
