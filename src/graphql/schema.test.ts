import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import { isEnumType, isInputObjectType, isObjectType, type GraphQLObjectType } from 'graphql';
import { isFederationElement } from './federation';
import { sdlSchema } from './resolvers';
import { schemaSdl } from './schema';

describe('the schema as documentation', () => {
  it('describes every type, field, argument and enum value (the federation machinery aside), without references to specification sections', async () => {
    const schema = await sdlSchema();
    const missing: string[] = [];
    const described: string[] = [];
    const check = (name: string, description: string | null | undefined) => {
      if (name.split(/[.(]/).some(isFederationElement)) return;
      if (!description) missing.push(name);
      else described.push(description);
    };
    for (const type of Object.values(schema.getTypeMap())) {
      if (type.name.startsWith('__')) continue;
      check(type.name, type.description);
      if (isObjectType(type) || isInputObjectType(type)) {
        for (const field of Object.values(type.getFields())) {
          check(`${type.name}.${field.name}`, field.description);
          for (const arg of 'args' in field ? field.args : [])
            check(`${type.name}.${field.name}(${arg.name})`, arg.description);
        }
      }
      if (isEnumType(type))
        for (const value of type.getValues()) check(`${type.name}.${value.name}`, value.description);
    }
    expect(missing).toEqual([]);
    expect(described.filter((text) => /§|\bspec\b/i.test(text))).toEqual([]);
  });

  it('names ids and enum values as GraphQL clients expect', async () => {
    const schema = await sdlSchema();
    const names: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (type.name.startsWith('__')) continue;
      if (isObjectType(type) || isInputObjectType(type)) names.push(...Object.keys(type.getFields()));
      if (isEnumType(type)) expect(type.getValues().every((value) => /^[A-Z][A-Z0-9_]*$/.test(value.name))).toBe(true);
    }
    expect(names.filter((name) => /userid|isserver/.test(name))).toEqual([]);
  });

  it('makes the root types a map: Query and Subscription name each of their fields, Mutation each area', async () => {
    const schema = await sdlSchema();
    const unnamed = (type: GraphQLObjectType) =>
      Object.keys(type.getFields()).filter(
        (field) => !field.startsWith('_') && !type.description!.includes(`\`${field}\``),
      );
    expect(unnamed(schema.getQueryType()!)).toEqual([]);
    expect(unnamed(schema.getSubscriptionType()!)).toEqual([]);
    expect(schema.getQueryType()!.description).toMatch(/TIDE.*access log/s);
    for (const area of ['Accounts', 'Confirmations', 'Clinics', 'Sharing', 'Data'])
      expect(schema.getMutationType()!.description).toContain(`- ${area}:`);
  });

  it('writes acronyms in capitals inside sentences (no "cGM")', async () => {
    const text = schemaSdl(await sdlSchema());
    expect(text.match(/\b[a-z](GM|GMI|CGM|BGM|TIR)\b/g)).toBeNull();
  });
});
