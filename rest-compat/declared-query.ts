import type { RouteDoc } from './route';

/**
 * The query parameters of a request that its route declares in its description, and only
 * those. A parameter a route reads without declaring it is invisible to it (its own tests then
 * fail), so `/openapi.json` cannot drift from what the validators read. Others are ignored, as
 * Tidepool's services ignore them. A family of parameters (the patient list's `cgm.*` filters)
 * is declared by its members: an undeclared member still reaches the route, which refuses it by
 * name as Tidepool does. A route without a description sees every parameter (the OpenAPI test
 * fails for it anyway).
 */
export function declaredQuery(doc: RouteDoc | undefined): (query: Record<string, unknown>) => Record<string, unknown> {
  if (!doc) return (query) => query;
  const declared = new Set(doc.parameters?.filter((parameter) => parameter.in === 'query').map(({ name }) => name));
  const families = new Set([...declared].filter((name) => name.includes('.')).map(familyOf));
  return (query) => {
    const kept: Record<string, unknown> = {};
    for (const name in query) if (declared.has(name) || families.has(familyOf(name))) kept[name] = query[name];
    return kept;
  };
}

/** `cgm.` of `cgm.timeInVeryLowPercent`; a name without a dot is a family of its own. */
const familyOf = (name: string) => name.slice(0, name.indexOf('.') + 1) || name;
