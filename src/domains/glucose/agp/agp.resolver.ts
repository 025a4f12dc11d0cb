import { Arg, Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import type { Scope } from '../../../kernel/scope';
import { CgmSummary, SummaryPeriodValue } from '../glucose-summary.types';
import { BgUnitsValue } from '../glucose-units.types';
import { AgpService } from './agp.service';
import { Agp } from './agp.types';

/** The AGP beside the CGM summary it shares its readings with, read as the summary was (as the user, or inside a clinic). */
@Resolver(() => CgmSummary)
export class CgmSummaryAgpResolver {
  constructor(
    private readonly profiles: AgpService,
    /** The time zone of the clinic a summary was read inside (the caller was let read it there). */
    private readonly clinicZone: (scope: Scope, clinicId: string) => Promise<string | null>,
  ) {}

  @FieldResolver(() => Agp, {
    description:
      'The Ambulatory Glucose Profile of the same readings as this summary: percentiles by 15 minutes of local time of day. Inside a clinic, the clinic’s time zone is the last fallback.',
  })
  async agp(
    @Root() summary: CgmSummary,
    @Arg('period', () => SummaryPeriodValue, {
      nullable: true,
      description:
        'SEVEN_DAYS, FOURTEEN_DAYS or THIRTY_DAYS (ONE_DAY is refused); the summary’s period when omitted, 14 days when that is ONE_DAY.',
    })
    period: SummaryPeriodValue | null,
    @Arg('units', () => BgUnitsValue, {
      nullable: true,
      description: 'The unit of the percentiles; the summary’s when omitted.',
    })
    units: BgUnitsValue | null,
    @Arg('timeZone', () => String, {
      nullable: true,
      description: 'An IANA time zone (e.g. Asia/Kolkata) for readings whose record and upload name none.',
    })
    timeZone: string | null,
    @Ctx() scope: Scope,
  ): Promise<Agp> {
    const { source } = summary;
    const asked = period ?? (source.period === '1d' ? SummaryPeriodValue.FOURTEEN_DAYS : source.period);
    const args = { period: asked, units: units ?? summary.period.units, timeZone };
    if (!source.clinic) return Agp.from(await this.profiles.agp(scope, source.userId, args));
    const patient = {
      userId: source.userId,
      permissions: source.clinic.permissions,
      timezone: await this.clinicZone(scope, source.clinic.clinicId),
    };
    return Agp.from(await this.profiles.agpOfClinicPatient(scope, patient, args));
  }
}
