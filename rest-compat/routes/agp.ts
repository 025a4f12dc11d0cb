import { Readable } from 'node:stream';
import type { AgpService, Agp } from '../../src/domains/glucose/agp/agp.service';
import { agpSvg } from '../../src/domains/glucose/agp/agp-svg';
import { AGP_PERIODS } from '../../src/domains/glucose/agp/agp';
import type { Scope } from '../../src/kernel/scope';
import { oneParameter } from '../query-parameters';
import { BG_UNITS } from '../enums';
import { arrayOf, dateTime, integer, object, queryParameter, string } from '../openapi/schemas';
import type { ContentRoute, JsonSchema, ParameterDoc } from '../route';

const PERCENTILE: JsonSchema = {
  type: ['number', 'null'],
  description: 'Null when the slot has fewer than 5 readings',
};

const AGP: JsonSchema = object(
  {
    period: { type: 'string', enum: Object.keys(AGP_PERIODS) },
    units: { type: 'string', enum: BG_UNITS.legacyValues },
    from: {
      ...dateTime,
      type: ['string', 'null'],
      description: "The start of the period's first hour; null without CGM data",
    },
    to: { ...dateTime, type: ['string', 'null'], description: 'The end of the newest hour; null without CGM data' },
    readings: { ...integer, description: "The readings counted: the CGM summary's totalRecords of the period" },
    bins: arrayOf(
      object(
        {
          minute: { ...integer, description: "The slot's first minute of the local day (0, 15, …, 1425)" },
          count: integer,
          p5: PERCENTILE,
          p25: PERCENTILE,
          p50: PERCENTILE,
          p75: PERCENTILE,
          p95: PERCENTILE,
        },
        ['minute', 'count', 'p5', 'p25', 'p50', 'p75', 'p95'],
      ),
    ),
  },
  ['period', 'units', 'from', 'to', 'readings', 'bins'],
);

const PARAMETERS: readonly ParameterDoc[] = [
  queryParameter(
    'period',
    { type: 'string', enum: Object.keys(AGP_PERIODS) },
    'The period ending at the newest hour with data; 14d when omitted',
  ),
  queryParameter(
    'units',
    { type: 'string', enum: BG_UNITS.legacyValues },
    "The unit of the percentiles; the clinic's preferredBgUnits with clinicId, else mg/dL",
  ),
  queryParameter(
    'timeZone',
    string(),
    'An IANA time zone (e.g. Asia/Kolkata) for readings whose record and upload name none',
  ),
  queryParameter(
    'clinicId',
    string(),
    "Read as this clinic's patient: the clinic's rules decide who may, and its time zone is the last fallback",
  ),
];

const DESCRIPTION =
  'The CGM readings the summary of the same period counts, binned by local time of day (the record’s offset or zone, its upload’s zone, `timeZone`, the clinic’s zone, else UTC) into 96 slots of 15 minutes, with the 5th, 25th, 50th, 75th and 95th percentiles of each (numpy.percentile’s linear interpolation; null under 5 readings). Whoever may read the patient’s glucose data may read it; without CGM data, `readings` is 0, `from` and `to` are null and every slot is empty.';

/** The AGP the request asks for: the service checks access and every parameter but the units' legacy names. */
async function agpOf(agp: AgpService, scope: Scope, userId: string, query: Record<string, unknown>): Promise<Agp> {
  const units = oneParameter(query, 'units');
  return agp.agp(scope, userId, {
    period: oneParameter(query, 'period'),
    units: units === undefined ? null : (BG_UNITS.value(units, 'units') as Agp['units']),
    timeZone: oneParameter(query, 'timeZone'),
    clinicId: oneParameter(query, 'clinicId'),
  });
}

/** The AGP's wire form: legacy unit names, RFC 3339 times. */
const wire = (agp: Agp) => ({
  ...agp,
  units: BG_UNITS.legacy(agp.units),
  from: agp.from?.toISOString() ?? null,
  to: agp.to?.toISOString() ?? null,
});

/** The Ambulatory Glucose Profile, as numbers and as a picture. */
export function agpRoutes(agp: AgpService): ContentRoute[] {
  return [
    {
      path: '/v1/patients/:userId/agp',
      doc: {
        tag: 'Data',
        summary: "A patient's Ambulatory Glucose Profile (AGP)",
        description: DESCRIPTION,
        parameters: PARAMETERS,
        response: AGP,
      },
      open: async (scope, params, query) => ({
        stream: Readable.from([JSON.stringify(wire(await agpOf(agp, scope, params.userId!, query)))]),
        headers: { 'Content-Type': 'application/json; charset=utf-8' },
      }),
    },
    {
      path: '/v1/patients/:userId/agp.svg',
      doc: {
        tag: 'Data',
        summary: "A patient's AGP as an SVG chart",
        description: `The chart of \`GET /v1/patients/{userId}/agp\` with the same parameters: the 5–95 and 25–75 percentile bands, the median, the target range 70–180 mg/dL (3.9–10.0 mmol/L), hours of the local day. ${DESCRIPTION}`,
        parameters: PARAMETERS,
        responseMediaType: 'image/svg+xml',
      },
      open: async (scope, params, query) => ({
        stream: Readable.from([agpSvg(await agpOf(agp, scope, params.userId!, query))]),
        headers: { 'Content-Type': 'image/svg+xml; charset=utf-8' },
      }),
    },
  ];
}
