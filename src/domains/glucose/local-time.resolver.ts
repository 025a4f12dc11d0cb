import { Ctx, FieldResolver, Int, Resolver, Root } from 'type-graphql';
import type { Scope } from '../../kernel/scope';
import { User } from '../users/user.types';
import { GlucoseReading } from './glucose.types';
import { LocalTimeService, type LocalTime } from './local-time.service';
import { LocalTimeSourceValue, localTimeSourceValue } from './local-time.types';

/** Each reading's local time, worked out once however many of its fields are asked. */
const worked = new WeakMap<GlucoseReading, Promise<LocalTime>>();

/** A reading's local time (local-time.ts's rule), with the fallbacks its list was read with. */
@Resolver(() => GlucoseReading)
export class GlucoseReadingLocalTimeResolver {
  constructor(private readonly times: LocalTimeService) {}

  private of(reading: GlucoseReading, scope: Scope): Promise<LocalTime> {
    let time = worked.get(reading);
    if (!time) {
      time = this.times.ofReading(scope, reading, reading.zoneFallbacks);
      worked.set(reading, time);
    }
    return time;
  }

  @FieldResolver(() => String, {
    description:
      'When the reading was taken in local time, without offset (`2024-03-10T03:30:00`): `time` plus `timezoneOffset`.',
  })
  async localTime(@Root() reading: GlucoseReading, @Ctx() scope: Scope): Promise<string> {
    return (await this.of(reading, scope)).localTime;
  }

  @FieldResolver(() => Int, {
    description:
      'The offset applied to `time` for `localTime`, in minutes east of UTC: the record’s own, else its zone’s, its dataset’s, the caller’s `timeZone`, the clinic’s, else 0 (UTC).',
  })
  async timezoneOffset(@Root() reading: GlucoseReading, @Ctx() scope: Scope): Promise<number> {
    return (await this.of(reading, scope)).minutes;
  }

  @FieldResolver(() => LocalTimeSourceValue, { description: 'Where `timezoneOffset` came from.' })
  async localTimeSource(@Root() reading: GlucoseReading, @Ctx() scope: Scope): Promise<LocalTimeSourceValue> {
    return localTimeSourceValue((await this.of(reading, scope)).source);
  }
}

/** The time zone an account's uploads last named. */
@Resolver(() => User)
export class UserTimeZoneResolver {
  constructor(private readonly times: LocalTimeService) {}

  @FieldResolver(() => String, {
    nullable: true,
    description:
      'The time zone (IANA name) of the account’s newest upload that named one; null when none did, or for callers who may not read its data.',
  })
  timeZone(@Root() user: User, @Ctx() scope: Scope): Promise<string | null> {
    return this.times.lastTimeZoneOf(scope, user.userId);
  }
}
