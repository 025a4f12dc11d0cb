import type { PatientExportService } from '../../src/domains/clinics/patient-export.service';
import type { GlucoseUnits } from '../../src/domains/glucose/summary/units';
import { invalid } from '../../src/kernel/errors';
import { oneParameter } from '../query-parameters';
import { BG_UNITS } from '../enums';
import { PATIENT_LIST_PARAMETERS } from '../openapi/clinic-patients';
import { legacyEnum, queryParameter } from '../openapi/schemas';
import { patientListQuery } from '../patient-list-query';
import type { ContentRoute } from '../route';

const CSV = 'text/csv';

/**
 * The patient list as CSV, on the JSON list's own path: asked with `Accept: text/csv` or
 * `format=csv`, it reads the same query (rest-compat/patient-list-query.ts) and streams every
 * patient it holds, not one page.
 */
export function patientCsvDownloads(exports: PatientExportService): ContentRoute[] {
  return [
    {
      path: '/v1/clinics/:clinicId/patients',
      negotiated: { mediaType: CSV, format: 'csv' },
      doc: {
        tag: 'Clinic patients',
        summary: "A clinic's patients, filtered and sorted, with their summaries",
        description:
          "With `Accept: text/csv` or `format=csv`: every patient the filters hold (no paging), in the same order, as CSV (RFC 4180, a header row, CRLF): id, fullName, mrn, birthDate, email, tags (names, `; ` between), lastData, then for cgm and bgm their lastData and every statistic of `period` (the previous one with offsetPeriods), glucose ones in `units` (named in the header). A text cell starting with `=`, `+`, `-`, `@`, a tab or a carriage return is written with a `'` before it; numbers never are.",
        parameters: [
          ...PATIENT_LIST_PARAMETERS,
          queryParameter(
            'format',
            { type: 'string', enum: ['json', 'csv'] },
            'csv: the whole list as CSV (as `Accept: text/csv`); json when omitted',
          ),
          queryParameter(
            'units',
            legacyEnum(BG_UNITS),
            "The CSV's glucose unit: the clinic's preferredBgUnits when omitted",
          ),
        ],
        response: { type: 'string' },
        responseMediaType: CSV,
      },
      open: async (scope, params, query) => {
        const format = oneParameter(query, 'format');
        if (format !== undefined && format !== 'csv') throw invalid('format must be json or csv', 'format');
        const list = patientListQuery({ query });
        const units = oneParameter(query, 'units');
        const chosen = units === undefined ? null : (BG_UNITS.value(units, 'units') as GlucoseUnits);
        const { stream, filename } = await exports.csv(scope, params.clinicId, list, chosen);
        return {
          stream,
          headers: {
            'Content-Type': `${CSV}; charset=utf-8`,
            'Content-Disposition': `attachment; filename="${filename}"`,
            'Cache-Control': 'no-store',
          },
        };
      },
    },
  ];
}
