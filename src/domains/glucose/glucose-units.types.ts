import { registerEnumType } from 'type-graphql';

/** A glucose unit: the units argument of glucose-bearing fields, and a clinic's preferredBgUnits. */
export enum BgUnitsValue {
  MG_DL = 'MG_DL',
  MMOL_L = 'MMOL_L',
}

registerEnumType(BgUnitsValue, {
  name: 'BgUnits',
  description: 'A blood glucose unit. mg/dL = mmol/L × 18.01559 (Tidepool’s factor); converted values are not rounded.',
  valuesConfig: {
    MG_DL: { description: 'Milligrams per decilitre (mg/dL).' },
    MMOL_L: { description: 'Millimoles per litre (mmol/L).' },
  },
});

/** The `units` argument of a field whose answer holds glucose values. */
export const UNITS_ARG = {
  nullable: true,
  description:
    'The unit of the glucose values in the answer (which states it): inside a clinic its preferredBgUnits, else MMOL_L, when omitted.',
} as const;
