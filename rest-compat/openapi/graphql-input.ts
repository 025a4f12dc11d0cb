import {
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  type GraphQLInputType,
  type GraphQLSchema,
} from 'graphql';
import { MAX_LIST_ENTRIES } from '../../src/kernel/validation';
import {
  BG_UNITS,
  BLOB_STATUS,
  CLINIC_SIZE,
  CLINIC_TYPE,
  CLINICIAN_ROLE,
  type LegacyEnum,
  PERMISSION_NAME,
  SUMMARY_PERIOD,
} from '../enums';
import type { JsonSchema } from '../route';

/** GraphQL enums whose values the legacy wire spells differently, with the mapping the routes translate with. */
const LEGACY_ENUMS: Record<string, LegacyEnum> = {
  BgUnits: BG_UNITS,
  BlobStatus: BLOB_STATUS,
  ClinicSize: CLINIC_SIZE,
  ClinicType: CLINIC_TYPE,
  ClinicianRole: CLINICIAN_ROLE,
  PermissionName: PERMISSION_NAME,
  SummaryPeriod: SUMMARY_PERIOD,
};

/** The JSON Schema of each GraphQL scalar the schema's inputs use (the GraphQL fuzz cases read it too). */
export const SCALAR_SCHEMAS: Record<string, JsonSchema> = {
  String: { type: 'string' },
  ID: { type: 'string' },
  Int: { type: 'integer' },
  Float: { type: 'number' },
  Boolean: { type: 'boolean' },
  DateTime: { type: 'string', format: 'date-time' },
};

/** A nullable GraphQL type also takes null (which the operations read as "unchanged" or "none"). */
function orNull(schema: JsonSchema): JsonSchema {
  return typeof schema.type === 'string' ? { ...schema, type: [schema.type, 'null'] } : schema;
}

function typeSchema(type: GraphQLInputType): JsonSchema {
  const nullable = !isNonNullType(type);
  const inner = isNonNullType(type) ? type.ofType : type;
  let schema: JsonSchema;
  if (isListType(inner)) schema = { type: 'array', items: typeSchema(inner.ofType), maxItems: MAX_LIST_ENTRIES };
  else if (isEnumType(inner)) {
    const legacy = LEGACY_ENUMS[inner.name];
    schema = { type: 'string', enum: legacy ? legacy.legacyValues : inner.getValues().map((value) => value.name) };
  } else if (isInputObjectType(inner)) schema = inputObjectSchema(inner.name, inner.getFields(), []);
  else if (isScalarType(inner)) schema = SCALAR_SCHEMAS[inner.name] ?? { description: inner.description ?? inner.name };
  else throw new Error(`no JSON Schema for ${String(inner)}`);
  return nullable ? orNull(schema) : schema;
}

function inputObjectSchema(
  name: string,
  fields: Record<string, { type: GraphQLInputType; description?: string | null }>,
  omit: readonly string[],
): JsonSchema {
  const kept = Object.entries(fields).filter(([field]) => !omit.includes(field));
  const required = kept.filter(([, field]) => isNonNullType(field.type)).map(([field]) => field);
  const properties = Object.fromEntries(
    kept.map(([field, { type, description }]) => [
      field,
      { ...typeSchema(type), ...(description ? { description } : {}) },
    ]),
  );
  return { type: 'object', title: name, properties, ...(required.length ? { required } : {}) };
}

/** The JSON Schema of a GraphQL input type as the legacy wire sends it, less the fields the route fills in. */
export function graphqlInputSchema(schema: GraphQLSchema, name: string, omit: readonly string[]): JsonSchema {
  const type = schema.getType(name);
  if (!isInputObjectType(type)) throw new Error(`OpenAPI: ${name} is not a GraphQL input type`);
  return inputObjectSchema(name, type.getFields(), omit);
}
