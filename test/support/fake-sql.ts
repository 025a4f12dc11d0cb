/**
 * An entity manager, for a unit test of a rule, whose statements `answer` decides: it stands in a
 * transaction, so the SQL runner sends every statement, bound or reusable, through its context
 * (`executeQuery`, as MikroORM's Kysely transaction), with the statement's text and parameters;
 * reads that tolerate staleness, too.
 */
export function fakeTransaction(answer: (sql: string, params: readonly unknown[]) => unknown[]) {
  return {
    getTransactionContext: () => ({
      executeQuery: async ({ sql, parameters }: { sql: string; parameters: readonly unknown[] }) => ({
        rows: answer(sql, parameters),
      }),
    }),
    // Entities without columns (columnsOf): `answer` reads a statement's parameters, not its select list.
    getMetadata: () => ({ className: 'FakeEntity', props: [] }),
    // A driver with no replicas routed (src/infra/database/replicas.ts): stale reads on the primary too.
    getDriver: () => ({}),
  };
}
