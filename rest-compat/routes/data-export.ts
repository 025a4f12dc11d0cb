import type { DataExportService } from '../../src/domains/glucose/data-export/data-export.service';
import type { ExportUnits } from '../../src/domains/glucose/data-export/export-rows';
import { EXPORT_FORMATS, type ExportFormat } from '../../src/domains/glucose/data-export/writers';
import { invalid } from '../../src/kernel/errors';
import { dateTimeParameter, oneParameter } from '../query-parameters';
import { arrayOf, dateTime, object, queryParameter, string } from '../openapi/schemas';
import type { ContentRoute } from '../route';

const FORMATS = Object.keys(EXPORT_FORMATS) as ExportFormat[];
const UNITS: ExportUnits[] = ['mg/dL', 'mmol/L'];

/** A record of the JSON export: Tidepool's data model (cbg, smbg, upload), plus the reading's local time. */
const EXPORTED = object(
  {
    id: string(),
    type: { type: 'string', enum: ['cbg', 'smbg', 'upload'] },
    time: string('RFC 3339, UTC (an upload: when the uploader says it happened)'),
    value: { type: 'number', description: 'In `units` (the `bgUnits` asked for), not rounded' },
    units: { type: 'string', enum: UNITS },
    uploadId: string('The dataset (upload) the record came in'),
    localTime: string('Local date and time without offset, `2024-03-10T03:30:00` (readings)'),
    localTimeOffset: { type: 'integer', description: 'The offset applied, minutes east of UTC (readings)' },
    localTimeSource: {
      type: 'string',
      enum: ['record-offset', 'record-zone', 'dataset-zone', 'caller-zone', 'clinic-zone', 'utc'],
    },
    createdTime: dateTime,
  },
  ['id', 'type', 'uploadId'],
);

const DESCRIPTION = `Tidepool's export service: every cbg and smbg record (oldest first) and the uploads they came in (with their devices), streamed as read from the database.

- \`json\`: one JSON array of records as Tidepool's data model writes them, with \`localTime\`, \`localTimeOffset\` and \`localTimeSource\` on readings; the uploads follow the readings.
- \`csv\`: one RFC 4180 table (CRLF, a header row): \`type\` (cbg, smbg, upload), then the reading columns (id, time, localTime, localTimeOffset, localTimeSource, value, units, uploadId, deviceId, deviceTime, timezone, timezoneOffset, trend, trendRate, trendRateUnits, sampleInterval, backfilled, otherFields (the record's other fields as JSON), subType) and the upload columns (createdTime, dataSetType, deviceManufacturers, deviceModel, deviceSerialNumber, deviceTags, clientName, clientVersion, version). Text starting with \`=\`, \`+\`, \`-\`, \`@\`, a tab or a carriage return gets a leading \`'\`.
- \`xlsx\`: an Excel workbook with the sheets cbg, smbg and uploads, each with a header row and the columns above that apply to it.

A reading's local time: its time plus its own \`timezoneOffset\`; else its own \`timezone\`, its upload's \`timezone\`, \`timeZone\`, the clinic's \`timezone\` (\`clinicId\`), at the reading's time; else UTC. A failure after the first byte cuts the connection: a file that ends without its closing bytes is incomplete.`;

const unitsOf = (value: string | undefined): ExportUnits => {
  if (value === undefined) return 'mg/dL';
  const units = UNITS.find((name) => name.toLowerCase() === value.toLowerCase());
  if (!units) throw invalid('bgUnits must be mg/dL or mmol/L', 'bgUnits');
  return units;
};

const formatOf = (value: string | undefined): ExportFormat => {
  if (value === undefined) return 'json';
  if (!FORMATS.includes(value as ExportFormat)) throw invalid(`format must be one of ${FORMATS.join(', ')}`, 'format');
  return value as ExportFormat;
};

/** `GET /export/{userId}`: a patient's data to take away (src/domains/glucose/data-export). */
export function dataExportDownloads(exports: DataExportService): ContentRoute[] {
  return [
    {
      path: '/export/:userId',
      doc: {
        tag: 'Data',
        summary: "An account's data to take away: JSON, CSV or an Excel workbook",
        description: DESCRIPTION,
        parameters: [
          queryParameter('format', { type: 'string', enum: FORMATS, default: 'json' }, 'The file format'),
          queryParameter('bgUnits', { type: 'string', enum: UNITS, default: 'mg/dL' }, 'The unit of glucose values'),
          queryParameter('startDate', dateTime, 'Readings at or after this time; the whole history when omitted'),
          queryParameter('endDate', dateTime, 'Readings at or before this time; not before startDate'),
          queryParameter(
            'timeZone',
            { type: 'string', examples: ['Asia/Kolkata'] },
            'An IANA time zone for readings whose record and upload name none',
          ),
          queryParameter(
            'clinicId',
            { type: 'string' },
            "A clinic the caller is a clinician of: its time zone applies after timeZone's",
          ),
        ],
        response: arrayOf(EXPORTED),
        otherMediaTypes: {
          'text/csv': { type: 'string', description: 'One RFC 4180 table with a header row' },
          [EXPORT_FORMATS.xlsx.mediaType]: {
            type: 'string',
            format: 'binary',
            description: 'A workbook with the sheets cbg, smbg and uploads',
          },
        },
        responseHeaders: ['Content-Disposition'],
      },
      open: async (scope, params, query) => {
        const date = (name: string) => (query[name] === undefined ? null : new Date(dateTimeParameter(query, name)));
        const file = await exports.open(scope, {
          userId: params.userId,
          format: formatOf(oneParameter(query, 'format')),
          units: unitsOf(oneParameter(query, 'bgUnits')),
          from: date('startDate'),
          to: date('endDate'),
          timeZone: oneParameter(query, 'timeZone') ?? null,
          clinicId: oneParameter(query, 'clinicId') ?? null,
        });
        return {
          stream: file.stream,
          headers: {
            'Content-Type': file.mediaType,
            'Content-Disposition': `attachment; filename="${file.fileName}"`,
            'Cache-Control': 'no-store',
          },
        };
      },
    },
  ];
}
