import { Field, Float, Int, ObjectType } from 'type-graphql';
import { SummaryPeriodValue } from '../glucose-summary.types';
import { BgUnitsValue } from '../glucose-units.types';
import type { Agp as AgpValue } from './agp.service';

@ObjectType({
  simpleResolvers: true,
  description:
    'A 15-minute slot of the local day in the Ambulatory Glucose Profile: how many readings fell in it and their percentiles (linear interpolation between closest ranks, as numpy.percentile), in the profile’s `units`, not rounded.',
})
export class AgpBin {
  @Field(() => Int, { description: 'The slot’s first minute of the local day: 0, 15, …, 1425.' })
  minute!: number;

  @Field(() => Int, {
    description: 'Readings whose local time of day falls in the slot, over every day of the period.',
  })
  count!: number;

  @Field(() => Float, { nullable: true, description: '5th percentile; null when the slot has fewer than 5 readings.' })
  p5!: number | null;

  @Field(() => Float, { nullable: true, description: '25th percentile; null when the slot has fewer than 5 readings.' })
  p25!: number | null;

  @Field(() => Float, { nullable: true, description: 'Median; null when the slot has fewer than 5 readings.' })
  p50!: number | null;

  @Field(() => Float, { nullable: true, description: '75th percentile; null when the slot has fewer than 5 readings.' })
  p75!: number | null;

  @Field(() => Float, { nullable: true, description: '95th percentile; null when the slot has fewer than 5 readings.' })
  p95!: number | null;
}

@ObjectType({
  simpleResolvers: true,
  description:
    'The Ambulatory Glucose Profile (AGP, Battelino 2019) of a period: the CGM readings the summary of the same period counts, binned by local time of day (the reading’s own offset or zone, else its upload’s zone, else the `timeZone` asked, else the clinic’s, else UTC) into 96 slots of 15 minutes.',
})
export class Agp {
  @Field(() => SummaryPeriodValue, {
    description: 'The period: 7, 14 or 30 days ending at the hour of the newest reading.',
  })
  period!: SummaryPeriodValue;

  @Field(() => BgUnitsValue, { description: 'The unit of every percentile.' })
  units!: BgUnitsValue;

  @Field(() => Date, { nullable: true, description: 'The start of the period’s first hour; null without CGM data.' })
  from!: Date | null;

  @Field(() => Date, { nullable: true, description: 'The end of the newest hour; null without CGM data.' })
  to!: Date | null;

  @Field(() => Int, {
    description: 'The readings counted: the same as the CGM summary’s `totalRecords` for the period.',
  })
  readings!: number;

  @Field(() => [AgpBin], { description: 'The 96 slots, from minute 0 to minute 1425.' })
  bins!: AgpBin[];

  static from(agp: AgpValue): Agp {
    return Object.assign(new Agp(), {
      ...agp,
      period: agp.period as SummaryPeriodValue,
      units: agp.units as BgUnitsValue,
      bins: agp.bins.map((bin) => Object.assign(new AgpBin(), bin)),
    });
  }
}
