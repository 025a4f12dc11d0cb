/** A resolver class and the instance (with its services) that serves it. */
export type ResolverBinding = [resolverClass: Function, instance: object];

/** The wired instance of a resolver class among the schema's bindings. */
export function instanceIn<T>(bindings: ResolverBinding[], resolverClass: new (...args: never[]) => T): T {
  const binding = bindings.find(([bound]) => bound === resolverClass);
  if (!binding) throw new Error(`${resolverClass.name} is not among the schema's resolvers`);
  return binding[1] as T;
}
