import { Presets, SingleBar } from 'cli-progress';

/**
 * The seed's progress on `stream`: a bar on a terminal; elsewhere (a pipe, a CI log) a line
 * every `everyMs`, so a run without a terminal still shows it is moving.
 */
export function seedProgress(total: number, stream: NodeJS.WritableStream = process.stdout, everyMs = 3000): SingleBar {
  const bar = new SingleBar(
    {
      format: 'seeding {bar} {value}/{total} patients | {eta_formatted} left',
      stream,
      noTTYOutput: true,
      notTTYSchedule: everyMs,
    },
    Presets.shades_classic,
  );
  bar.start(total, 0);
  return bar;
}
