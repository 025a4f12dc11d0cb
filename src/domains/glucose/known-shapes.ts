import type { ReadingShape } from './reading-shape';

/**
 * The shapes this process stored or found (`storeShapes`, reading-upload.repository.ts), by
 * dataset and shape, each with a time span its stored span covers. An upload whose shapes are
 * all here, their spans covering its readings, needs no statement for them: 2 to 6 ms of a
 * 1,000-reading upload, most of which find their shapes stored. What is remembered stays true:
 * shape ids are never reused and a stored span only widens. A dataset's shapes go only with the
 * dataset, and an upload to a deleted dataset is refused before its insert, when its transaction
 * finds no dataset row.
 */
const known = new Map<string, { id: number; first: number; last: number }>();

/** Enough for thousands of uploading devices; past it the memory starts again. */
const KNOWN_AT_MOST = 10_000;

const keyOf = (datasetId: string, shape: ReadingShape) =>
  `${datasetId}|${shape.type}|${shape.minutes}|${shape.deviceId}|${JSON.stringify(shape.fields)}`;

/** The ids of `shapes` of the dataset when each is known over `first` to `last` (epoch ms); null otherwise. */
export function knownShapeIds(
  datasetId: string,
  shapes: readonly ReadingShape[],
  first: number,
  last: number,
): number[] | null {
  const ids: number[] = [];
  for (const shape of shapes) {
    const entry = known.get(keyOf(datasetId, shape));
    if (!entry || entry.first > first || entry.last < last) return null;
    ids.push(entry.id);
  }
  return ids;
}

/** Remembers the dataset's `shapes` as stored: each its id and a span (epoch ms) its stored span covers. */
export function rememberShapes(
  datasetId: string,
  shapes: readonly ReadingShape[],
  stored: readonly { id: number; first: number; last: number }[],
): void {
  if (known.size + shapes.length > KNOWN_AT_MOST) known.clear();
  shapes.forEach((shape, index) => {
    const { id, first, last } = stored[index]!;
    known.set(keyOf(datasetId, shape), { id, first, last });
  });
}
