/**
 * The playground's ready-made example tabs, also the documented examples: a test validates each
 * against the schema a GraphQL tool builds from introspection, and runs it on a seeded demo clinic.
 * No DOM here, so the service's tests import it as it is.
 */

/** What the examples' variables are made of: the signed-in clinician's first clinic, and now. */
export interface ExampleContext {
  /** The clinic's id; a placeholder saying what to put there when the account is no clinician. */
  clinicId: string;
  /** One of the clinic's patient tags (TIDE reports cover the patients carrying all tags asked). */
  tagId: string;
  now: Date;
}

export interface Example {
  title: string;
  query: string;
  variables(context: ExampleContext): Record<string, unknown>;
}

/** What the page asks first, when signed in, to fill the examples' variables. */
export const EXAMPLE_CONTEXT_QUERY = '{ myClinics(first: 1) { nodes { id patientTags { id } } } }';

const DAY_MS = 86_400_000;
const startOfDay = (time: number) => Math.floor(time / DAY_MS) * DAY_MS;

export const EXAMPLES: readonly Example[] = [
  {
    title: 'Patients, worst TIR first',
    query: `# Your clinic's patients, lowest time in
# range (TIR) first, with 14-day CGM
# statistics. TIR and TBR are fractions
# (0.58 = 58%), GMI a %, mean glucose in
# the clinic's units.
query PatientsWorstFirst {
  myClinics(first: 1) {
    nodes {
      name
      patients(
        first: 20
        orderBy: {
          field: TIME_IN_TARGET_PERCENT
          direction: ASC
          summary: CGM
          period: FOURTEEN_DAYS
        }
      ) {
        nodes {
          fullName
          glucoseSummary(period: FOURTEEN_DAYS) {
            cgm {
              period {
                timeInTargetPercent
                timeInAnyLowPercent
                timeInVeryLowPercent
                glucoseManagementIndicator
                averageGlucose
                units
              }
            }
          }
        }
      }
    }
  }
}
`,
    variables: () => ({}),
  },
  {
    title: 'TIDE report',
    query: `# The TIDE report: patients with CGM data
# since $since carrying the tags, sorted
# into categories (very low first) by
# their 14-day statistics.
query TideReport($clinicId: ID!, $tagIds: [ID!]!, $since: DateTime!) {
  clinic(id: $clinicId) {
    name
    tideReport(period: FOURTEEN_DAYS, tagIds: $tagIds, lastDataCutoff: $since) {
      categories {
        category
        entries {
          patient { fullName }
          timeInTargetPercent
          timeInVeryLowPercent
          timeInAnyLowPercent
        }
      }
      noData { patient { fullName } lastData }
    }
  }
}
`,
    variables: ({ clinicId, tagId, now }) => ({
      clinicId,
      tagIds: [tagId],
      since: new Date(startOfDay(now.getTime()) - 7 * DAY_MS).toISOString(),
    }),
  },
  {
    title: 'Readings of a day',
    query: `# One patient's CGM readings of yesterday
# (UTC), oldest first, 100 at a time: pass
# pageInfo.endCursor as $after for more.
# units: MG_DL or MMOL_L.
query ReadingsOfADay($from: DateTime!, $to: DateTime!, $after: String) {
  myClinics(first: 1) {
    nodes {
      patients(first: 1) {
        nodes {
          fullName
          user {
            glucoseReadings(
              filter: { from: $from, to: $to }
              units: MG_DL
              first: 100
              after: $after
            ) {
              nodes { time value units }
              pageInfo { hasNextPage endCursor }
            }
          }
        }
      }
    }
  }
}
`,
    variables: ({ now }) => {
      const today = startOfDay(now.getTime());
      return { from: new Date(today - DAY_MS).toISOString(), to: new Date(today).toISOString() };
    },
  },
  {
    title: 'Live summaries',
    query: `# Follows your clinic's patients live:
# each upload that changes a patient's
# glucose summary arrives here within a
# second. Stop with the ■ button.
subscription PatientSummaries($clinicId: ID!) {
  clinicPatientSummaryUpdated(clinicId: $clinicId) {
    kind
    patient {
      fullName
      glucoseSummary(period: ONE_DAY) {
        cgm { period { timeInTargetPercent totalRecords } }
      }
    }
  }
}
`,
    variables: ({ clinicId }) => ({ clinicId }),
  },
];

/** The variables of `example` as the editor shows them. */
export function exampleVariables(example: Example, context: ExampleContext): string | undefined {
  const variables = example.variables(context);
  return Object.keys(variables).length ? JSON.stringify(variables, null, 2) : undefined;
}
