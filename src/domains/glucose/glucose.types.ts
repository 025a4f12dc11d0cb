import { Field, Float, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { connectionOf } from '../../graphql/connection';
import { UploadScalar } from '../../graphql/upload';
import type { Upload } from '../../kernel/upload';
import type { DatasetRecord } from './dataset.entity';
import type { StoredReading } from './glucose.loaders';
import { BgUnitsValue } from './glucose-units.types';
import type { ZoneFallbacks } from './local-time.service';
import { fromMmol, type GlucoseUnits } from './summary/units';

/** Upload session kinds: UPPER_SNAKE_CASE in GraphQL, Tidepool's names inside. */
export enum DatasetTypeValue {
  NORMAL = 'normal',
  CONTINUOUS = 'continuous',
}
registerEnumType(DatasetTypeValue, {
  name: 'DatasetType',
  description: 'How an upload session delivers its records.',
  valuesConfig: {
    NORMAL: { description: 'Records count once the session is closed (a device upload).' },
    CONTINUOUS: { description: 'Records count as they arrive (a service streaming readings).' },
  },
});

export enum DatasetStateValue {
  OPEN = 'open',
  CLOSED = 'closed',
}
registerEnumType(DatasetStateValue, {
  name: 'DatasetState',
  description: 'Whether an upload session still takes records.',
  valuesConfig: {
    OPEN: { description: 'Records may be added.' },
    CLOSED: { description: 'Closed: adding records is refused (CONFLICT).' },
  },
});

export enum GlucoseTypeValue {
  CBG = 'cbg',
  SMBG = 'smbg',
}
registerEnumType(GlucoseTypeValue, {
  name: 'GlucoseType',
  description: 'Where a glucose reading comes from.',
  valuesConfig: {
    CBG: { description: 'A continuous glucose monitor (CGM) reading.' },
    SMBG: { description: 'A fingerstick (blood glucose meter, BGM) reading.' },
  },
});

@ObjectType({ description: 'The software that uploaded a dataset.' })
export class DatasetClient {
  @Field({ description: 'Its name, such as `org.tidepool.uploader`.' })
  name!: string;

  @Field(() => String, { nullable: true, description: 'Its version.' })
  version!: string | null;
}

@ObjectType({
  description:
    'An upload session of glucose records (Tidepool’s dataset): opened, filled with records, and (for NORMAL sessions) closed.',
})
export class Dataset {
  @Field(() => ID, { description: 'The dataset id (Tidepool’s `uploadId`): 32 lowercase hexadecimal characters.' })
  id!: string;

  @Field(() => ID, { description: 'The account the records belong to.' })
  userId!: string;

  @Field(() => DatasetTypeValue, { description: 'How the session delivers its records.' })
  dataSetType!: DatasetTypeValue;

  @Field(() => DatasetStateValue, { description: 'Whether the session still takes records.' })
  state!: DatasetStateValue;

  @Field({ description: 'How duplicate records are recognised: Tidepool’s deduplicator name.' })
  deduplicator!: string;

  @Field(() => DatasetClient, { nullable: true, description: 'The uploading software, when it said.' })
  client!: DatasetClient | null;

  @Field(() => String, { nullable: true, description: 'The device the records come from, when one was named.' })
  deviceId!: string | null;

  @Field(() => String, { nullable: true, description: 'The device model, when the uploader said.' })
  deviceModel!: string | null;

  @Field(() => [String], { description: 'The device manufacturers, when the uploader said.' })
  deviceManufacturers!: string[];

  @Field(() => [String], { description: 'What the device is: `cgm`, `bgm`, `insulin-pump`, `activity-monitor`.' })
  deviceTags!: string[];

  @Field(() => String, { nullable: true, description: 'The device’s serial number, when the uploader said.' })
  deviceSerialNumber!: string | null;

  @Field(() => String, { nullable: true, description: 'The time zone of the device, an IANA name.' })
  timezone!: string | null;

  @Field(() => Int, { nullable: true, description: 'The device’s offset from UTC in minutes, when the uploader said.' })
  timezoneOffset!: number | null;

  @Field(() => Date, { nullable: true, description: 'When the uploader says the upload happened.' })
  time!: Date | null;

  @Field(() => String, { nullable: true, description: 'The uploading computer’s local time (no offset), as sent.' })
  computerTime!: string | null;

  @Field(() => String, { nullable: true, description: 'How the uploader treated device times, as sent.' })
  timeProcessing!: string | null;

  @Field(() => Int, { nullable: true, description: 'Milliseconds the uploader shifted device times by, as sent.' })
  conversionOffset!: number | null;

  @Field(() => Int, { nullable: true, description: 'Milliseconds the device clock drifted, as sent.' })
  clockDriftOffset!: number | null;

  @Field(() => String, { nullable: true, description: 'The uploader’s version, as sent.' })
  version!: string | null;

  @Field(() => ID, { nullable: true, description: 'Who opened the session; null for server tokens.' })
  createdUserId!: string | null;

  @Field(() => Date, { description: 'When the session was opened.' })
  createdTime!: Date;

  @Field(() => Date, { nullable: true, description: 'When the session was last changed (closed).' })
  modifiedTime!: Date | null;

  static from(record: DatasetRecord): Dataset {
    const details = record.details;
    const optional = <T>(name: string) => (details[name] as T | undefined) ?? null;
    const client = details.client as { name: string; version?: string } | undefined;
    return Object.assign(new Dataset(), {
      id: record.id,
      userId: record.userId,
      dataSetType: record.dataSetType as DatasetTypeValue,
      state: record.state as DatasetStateValue,
      deduplicator: record.deduplicator,
      client: client
        ? Object.assign(new DatasetClient(), { name: client.name, version: client.version ?? null })
        : null,
      deviceId: record.deviceId ?? null,
      deviceModel: optional<string>('deviceModel'),
      deviceManufacturers: optional<string[]>('deviceManufacturers') ?? [],
      deviceTags: optional<string[]>('deviceTags') ?? [],
      deviceSerialNumber: optional<string>('deviceSerialNumber'),
      timezone: optional<string>('timezone'),
      timezoneOffset: optional<number>('timezoneOffset'),
      time: details.time ? new Date(details.time as string) : null,
      computerTime: optional<string>('computerTime'),
      timeProcessing: optional<string>('timeProcessing'),
      conversionOffset: optional<number>('conversionOffset'),
      clockDriftOffset: optional<number>('clockDriftOffset'),
      version: optional<string>('version'),
      createdUserId: record.createdUserId ?? null,
      createdTime: record.createdTime,
      modifiedTime: record.modifiedTime ?? null,
    });
  }
}

export const DatasetConnection = connectionOf(Dataset, 'Dataset', 'dataset');
export type DatasetConnection = InstanceType<typeof DatasetConnection>;

@ObjectType({ description: 'One glucose reading, its value in the `units` it states.' })
export class GlucoseReading {
  @Field(() => ID, { description: 'The reading id: 32 lowercase letters or digits.' })
  id!: string;

  @Field(() => GlucoseTypeValue, { description: 'CGM or fingerstick.' })
  type!: GlucoseTypeValue;

  @Field(() => Date, { description: 'When the reading was taken.' })
  time!: Date;

  @Field(() => Float, { description: 'The glucose value, in `units` (stored in mmol/L; mg/dL = mmol/L × 18.01559).' })
  value!: number;

  @Field(() => BgUnitsValue, { description: 'The unit of `value`.' })
  units!: GlucoseUnits;

  @Field(() => ID, { description: 'The dataset it was uploaded in.' })
  datasetId!: string;

  @Field(() => String, { nullable: true, description: 'The device that took it, when known.' })
  deviceId!: string | null;

  /** The record's own fields, which its local time reads (local-time.resolver.ts). */
  fields!: Record<string, unknown>;

  /** The zones its list was read with, for readings whose record and dataset name none. */
  zoneFallbacks!: ZoneFallbacks;

  static from(reading: StoredReading, units: GlucoseUnits, zoneFallbacks: ZoneFallbacks = {}): GlucoseReading {
    return Object.assign(new GlucoseReading(), {
      ...reading,
      type: reading.type as GlucoseTypeValue,
      value: fromMmol(reading.value, units),
      units,
      zoneFallbacks,
    });
  }
}

export const GlucoseReadingConnection = connectionOf(GlucoseReading, 'GlucoseReading', 'glucose reading');
export type GlucoseReadingConnection = InstanceType<typeof GlucoseReadingConnection>;

@InputType({ description: 'Which readings to list: a time range, and optionally one kind.' })
export class GlucoseReadingFilter {
  @Field(() => Date, { description: 'Readings taken at or after this time.' })
  from!: Date;

  @Field(() => Date, { description: 'Readings taken at or before this time; not before `from`.' })
  to!: Date;

  @Field(() => GlucoseTypeValue, {
    nullable: true,
    description: 'Only CGM or only fingerstick readings; both when omitted.',
  })
  type?: GlucoseTypeValue | null;
}

@InputType({ description: 'The uploading software.' })
export class DatasetClientInput {
  @Field({ description: 'Its name, such as `org.tidepool.uploader`.' })
  name!: string;

  @Field(() => String, { nullable: true, description: 'Its version.' })
  version?: string | null;
}

@InputType({ description: 'An upload session to open.' })
export class CreateDatasetInput {
  @Field(() => ID, {
    description: 'The account the records belong to (the caller, one it uploads for, or any for servers).',
  })
  userId!: string;

  @Field(() => DatasetTypeValue, { nullable: true, description: 'NORMAL when omitted.' })
  dataSetType?: DatasetTypeValue | null;

  @Field(() => String, {
    nullable: true,
    description:
      'How duplicates are recognised: `org.tidepool.deduplicator.none` (NORMAL default), `.dataset.drop.hash`, `.device.deactivate.hash` or `.dataset.delete.origin` (CONTINUOUS default).',
  })
  deduplicator?: string | null;

  @Field(() => DatasetClientInput, { nullable: true, description: 'The uploading software.' })
  client?: DatasetClientInput | null;

  @Field(() => String, { nullable: true, description: 'The device the records come from.' })
  deviceId?: string | null;

  @Field(() => String, { nullable: true, description: 'The device model.' })
  deviceModel?: string | null;

  @Field(() => [String], { nullable: true, description: 'The device manufacturers.' })
  deviceManufacturers?: string[] | null;

  @Field(() => [String], {
    nullable: true,
    description: 'What the device is: `cgm`, `bgm`, `insulin-pump`, `activity-monitor`.',
  })
  deviceTags?: string[] | null;

  @Field(() => String, { nullable: true, description: 'The device’s serial number.' })
  deviceSerialNumber?: string | null;

  @Field(() => String, { nullable: true, description: 'The time zone of the device, an IANA name.' })
  timezone?: string | null;

  @Field(() => Int, { nullable: true, description: 'The device’s offset from UTC in minutes.' })
  timezoneOffset?: number | null;

  @Field(() => String, { nullable: true, description: 'The uploader’s version (at least 5 characters).' })
  version?: string | null;

  @Field(() => Date, { nullable: true, description: 'When the upload happened, by the uploader’s clock.' })
  time?: Date | null;

  @Field(() => String, { nullable: true, description: 'The uploading computer’s local time, YYYY-MM-DDTHH:MM:SS.' })
  computerTime?: string | null;

  @Field(() => String, {
    nullable: true,
    description: 'How device times were treated: `across-the-board-timezone`, `none` or `utc-bootstrapping`.',
  })
  timeProcessing?: string | null;

  @Field(() => Int, { nullable: true, description: 'Milliseconds device times were shifted by.' })
  conversionOffset?: number | null;

  @Field(() => Int, { nullable: true, description: 'Milliseconds the device clock drifted (within ±86,400,000).' })
  clockDriftOffset?: number | null;

  /** Tidepool's dataset fields as an uploader sends them, for the service's checks. */
  static tidepoolFields({ userId: _userId, dataSetType, deduplicator, client, ...rest }: CreateDatasetInput) {
    const fields: Record<string, unknown> = Object.fromEntries(
      Object.entries(rest)
        .filter(([, value]) => value != null)
        .map(([name, value]) => [name, value instanceof Date ? value.toISOString() : value]),
    );
    if (dataSetType) fields.dataSetType = dataSetType;
    if (deduplicator) fields.deduplicator = { name: deduplicator };
    if (client) fields.client = Object.fromEntries(Object.entries({ ...client }).filter(([, value]) => value != null));
    return fields;
  }
}

@ObjectType({ description: 'The result of `createDataset`.' })
export class CreateDatasetPayload {
  @Field(() => Dataset, { description: 'The open dataset.' })
  dataset!: Dataset;
}

@InputType({ description: 'Records to add to an open dataset.' })
export class AddDatasetDataInput {
  @Field(() => ID, { description: 'The dataset.' })
  datasetId!: string;

  @Field(() => UploadScalar, {
    description:
      'A JSON array of at most 1,000 `cbg` and `smbg` records in Tidepool’s data model (a multipart file, at most 4 MiB); one invalid record refuses them all.',
  })
  records!: Upload;
}

@ObjectType({ description: 'The result of `addDatasetData`.' })
export class AddDatasetDataPayload {
  @Field(() => Dataset, { description: 'The dataset.' })
  dataset!: Dataset;

  @Field(() => Int, { description: 'How many records were stored: duplicates the deduplicator drops are not counted.' })
  stored!: number;
}

@InputType({ description: 'A dataset to close or delete.' })
export class DatasetInput {
  @Field(() => ID, { description: 'The dataset.' })
  id!: string;
}

@ObjectType({ description: 'The result of `closeDataset`.' })
export class CloseDatasetPayload {
  @Field(() => Dataset, { description: 'The closed dataset: its records now count.' })
  dataset!: Dataset;
}

@ObjectType({ description: 'The result of `deleteDataset`.' })
export class DeleteDatasetPayload {
  @Field(() => ID, { description: 'The deleted dataset; its records are gone too.' })
  deletedDatasetId!: string;
}

@InputType({ description: 'The account whose summaries to rebuild.' })
export class RebuildGlucoseSummariesInput {
  @Field(() => ID, { description: 'The account.' })
  userId!: string;
}

@ObjectType({ description: 'The result of `rebuildGlucoseSummaries`.' })
export class RebuildGlucoseSummariesPayload {
  @Field(() => ID, { description: 'The account whose summaries were rebuilt from all its readings.' })
  userId!: string;
}

// Plain data read as properties (simpleResolvers).
@ObjectType({
  simpleResolvers: true,
  description:
    'A connection that imports an account’s data from a device maker’s cloud (Dexcom, Abbott, …). None exist yet: the list is empty.',
})
export class DataSource {
  @Field(() => ID, { description: 'The data source id.' })
  id!: string;

  @Field({ description: 'The provider, such as `dexcom`.' })
  providerName!: string;

  @Field({ description: 'Whether it imports: `connected`, `disconnected` or `error`.' })
  state!: string;
}
