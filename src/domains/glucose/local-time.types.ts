import { registerEnumType } from 'type-graphql';
import type { LocalTimeSource } from './local-time';

/** Where a reading's local time came from: UPPER_SNAKE_CASE in GraphQL, local-time.ts's names inside. */
export enum LocalTimeSourceValue {
  RECORD_OFFSET = 'record-offset',
  RECORD_ZONE = 'record-zone',
  DATASET_ZONE = 'dataset-zone',
  CALLER_ZONE = 'caller-zone',
  CLINIC_ZONE = 'clinic-zone',
  UTC = 'utc',
}
registerEnumType(LocalTimeSourceValue, {
  name: 'LocalTimeSource',
  description: 'Where a reading’s local time came from, strongest first: the first of these the reading has decides.',
  valuesConfig: {
    RECORD_OFFSET: { description: 'The record’s own `timezoneOffset`, as the uploader sent it.' },
    RECORD_ZONE: { description: 'The record’s own `timezone` (an IANA name), at the reading’s time.' },
    DATASET_ZONE: { description: 'The `timezone` of the dataset (upload) the reading came in.' },
    CALLER_ZONE: { description: 'The `timeZone` the caller asked for.' },
    CLINIC_ZONE: { description: 'The `timezone` of the clinic the readings were read in (`clinicId`).' },
    UTC: { description: 'Nothing named a zone: UTC.' },
  },
});

export const localTimeSourceValue = (source: LocalTimeSource) => source as LocalTimeSourceValue;

/** The `timeZone` argument of fields that answer local times. */
export const TIME_ZONE_ARG = {
  nullable: true,
  description:
    'An IANA time zone (`Asia/Kolkata`) for readings whose record and dataset name none; an unknown name is BAD_USER_INPUT.',
} as const;

/** The `clinicId` argument of fields that answer local times. */
export const CLINIC_ZONE_ARG = {
  nullable: true,
  description:
    'Read as this clinic’s clinician: its `timezone` applies after `timeZone`. Only its clinicians and servers may name it.',
} as const;
