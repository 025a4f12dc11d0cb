/** A Tidepool CGM record (`cbg`) at `time` (epoch ms) of `mgdl`, five-minute sampling, as uploaders send it. */
export const cbg = (time: number, mgdl: number) => ({
  type: 'cbg',
  time: new Date(time).toISOString(),
  value: mgdl,
  units: 'mg/dL',
  sampleInterval: 300000,
});
