import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import { isEnumType, isInputObjectType, isObjectType } from 'graphql';
import { isFederationElement } from './federation';
import { sdlSchema } from './resolvers';

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
});
