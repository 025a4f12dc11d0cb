import { Arg, Args, Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import { PageArgs } from '../../graphql/connection';
import type { Scope } from '../../kernel/scope';
import { Clinic } from '../clinics/clinics.types';
import { User } from '../users/user.types';
import { AccessLogConnection, AccessLogEntry, AccessLogFilter } from './access-log.types';
import { AccessLogService } from './access-log.service';

const FILTER = { nullable: true, description: 'Which entries to list; all of them by default.' };

@Resolver(() => User)
export class UserAccessLogResolver {
  constructor(private readonly service: AccessLogService) {}

  @FieldResolver(() => AccessLogConnection, {
    description:
      'Who read or changed this account’s data or record, newest first: every access by someone other than the account, allowed or refused. The account, its custodians and server tokens may read it; others get FORBIDDEN.',
  })
  async accessLog(
    @Root() user: User,
    @Arg('filter', () => AccessLogFilter, FILTER) filter: AccessLogFilter | null,
    @Args() { first, after }: PageArgs,
    @Ctx() scope: Scope,
  ): Promise<AccessLogConnection> {
    const options = AccessLogFilter.options(filter, first, after);
    return AccessLogConnection.of(await this.service.ofUser(scope, user.userId, options), AccessLogEntry.from);
  }
}

@Resolver(() => Clinic)
export class ClinicAccessLogResolver {
  constructor(private readonly service: AccessLogService) {}

  @FieldResolver(() => AccessLogConnection, {
    description:
      'What the clinic’s clinicians read or changed of patients’ data through the clinic (its patient records, TIDE report, and the data patients share with it), newest first. CLINIC_ADMINs and server tokens may read it; others get FORBIDDEN.',
  })
  async accessLog(
    @Root() clinic: Clinic,
    @Arg('filter', () => AccessLogFilter, FILTER) filter: AccessLogFilter | null,
    @Args() { first, after }: PageArgs,
    @Ctx() scope: Scope,
  ): Promise<AccessLogConnection> {
    const options = AccessLogFilter.options(filter, first, after);
    return AccessLogConnection.of(await this.service.ofClinic(scope, clinic.id, options), AccessLogEntry.from);
  }
}
