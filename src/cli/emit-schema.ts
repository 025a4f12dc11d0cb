import 'reflect-metadata';
import fs from 'node:fs';
import { sdlSchema } from '../graphql/resolvers';
import { schemaSdl } from '../graphql/schema';

/** `npm run schema:emit`: writes schema.graphql from the resolvers (a test checks it is current). */
async function main(): Promise<void> {
  fs.writeFileSync('schema.graphql', schemaSdl(await sdlSchema()));
  process.stdout.write('wrote schema.graphql\n');
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error)?.stack ?? error}\n`);
  process.exit(1);
});
