import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import fc from 'fast-check';
import type { TestApp } from '../app';
import { decodeChunked } from '../content';
import { eventually } from '../eventually';
import { answerText, type Exchange, type Fuzzer } from './harness';
import { anyShortText } from './values';
import { CALLERS, type Caller, type IdPools, type World } from './world';

/**
 * GraphQL multipart requests (graphql-multipart-request-spec) made wrong in every way a body can
 * be: parts out of order, fields that are not JSON, maps naming files that never come and files
 * no map names, broken part headers, a boundary the Content-Type does not declare, no closing
 * delimiter, a body cut off at any byte, and a client that goes away mid-body.
 */
export interface MultipartTarget {
  name: string;
  document: string;
  /** The Upload variables of the document, in the order its map names them. */
  uploads: string[];
  /** The document's root fields as the answer names them. */
  fields: string[];
}

export const MULTIPART_TARGETS: MultipartTarget[] = [
  { name: 'a query that takes no file', document: '{ __typename }', uploads: [], fields: ['__typename'] },
  {
    name: 'createBlob with one file',
    document:
      'mutation ($userId: ID!, $file: Upload) { createBlob(input: { userId: $userId, content: $file }) { blob { id size } } }',
    uploads: ['file'],
    fields: ['createBlob'],
  },
  {
    name: 'two createBlob with a file each',
    document: `mutation ($userId: ID!, $first: Upload, $second: Upload) {
      one: createBlob(input: { userId: $userId, content: $first }) { blob { id } }
      two: createBlob(input: { userId: $userId, content: $second }) { blob { id } } }`,
    uploads: ['first', 'second'],
    fields: ['one', 'two'],
  },
];

type Part =
  | { kind: 'field'; name: string; value: string }
  | { kind: 'file'; name: string; filename: string; type: string; content: Uint8Array }
  /** A part whose header block is not a form-data header (no disposition, no colon, too long). */
  | { kind: 'broken'; headers: string; value: string };

export interface MultipartCase {
  caller: Caller;
  bearer: boolean;
  parts: Part[];
  /** What the Content-Type declares: the body's boundary, another one, or none. */
  declared: 'boundary' | 'other' | 'none';
  newline: '\r\n' | '\n';
  closing: boolean;
  /** Where the body stops (a fraction of it) and how: the request ends there, or the client goes away. */
  cut?: { at: number; how: 'end' | 'gone' };
}

const BOUNDARY = 'fuzz-boundary';
const FILE_NAMES = ['0', '1', 'file', 'a'.repeat(300)];

function operationsValue(target: MultipartTarget, pools: IdPools): fc.Arbitrary<string> {
  const variables = fc.record({
    userId: fc.constantFrom(...pools.users, 'not-an-id'),
    ...Object.fromEntries(target.uploads.map((name) => [name, fc.constant(null)])),
  });
  return fc.oneof(
    { weight: 4, arbitrary: variables.map((values) => JSON.stringify({ query: target.document, variables: values })) },
    { weight: 1, arbitrary: fc.constantFrom('', '{', '[]', 'null', '{"query": 1}') },
    { weight: 1, arbitrary: anyShortText },
  );
}

/** The map a well-formed request has: file `0` for the first Upload variable, `1` for the second. */
const specMap = (target: MultipartTarget) =>
  Object.fromEntries(target.uploads.map((name, index) => [String(index), [`variables.${name}`]]));

function mapValue(target: MultipartTarget): fc.Arbitrary<string> {
  const paths = fc.constantFrom(
    ...target.uploads.map((name) => `variables.${name}`),
    'variables.nothing',
    'variables.userId',
    '0.variables.file',
  );
  const map = fc.dictionary(fc.constantFrom(...FILE_NAMES), fc.array(paths, { maxLength: 2 }), { maxKeys: 12 });
  return fc.oneof(
    { weight: 4, arbitrary: fc.constant(JSON.stringify(specMap(target))) },
    { weight: 2, arbitrary: map.map((value) => JSON.stringify(value)) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('', '{', '[]', '{"0": "variables.file"}', JSON.stringify({ 0: [1] })),
    },
  );
}

const filePart = (names: fc.Arbitrary<string>): fc.Arbitrary<Part> =>
  fc.record({
    kind: fc.constant('file' as const),
    name: names,
    filename: fc.constantFrom('f.bin', '', '../../etc/passwd', 'é.txt'),
    type: fc.constantFrom('application/octet-stream', 'text/plain', 'image/png', 'not a type'),
    content: fc.uint8Array({ maxLength: 3_000 }),
  });

const brokenPart: fc.Arbitrary<Part> = fc.record({
  kind: fc.constant('broken' as const),
  headers: fc.constantFrom(
    'Content-Type: text/plain',
    'Content-Disposition: form-data',
    'Content-Disposition: attachment; name="map"',
    'no colon here',
    `X-Long: ${'x'.repeat(20_000)}`,
    'Content-Disposition: form-data; name="operations"; filename*=UTF-8\'\'%ZZ',
  ),
  value: fc.constantFrom('', '{}', 'AAAA'),
});

export function multipartCaseArbitrary(target: MultipartTarget, pools: IdPools): fc.Arbitrary<MultipartCase> {
  const fields = fc.tuple(operationsValue(target, pools), mapValue(target));
  // Mostly the files the map names, in order; sometimes any files at all.
  const specFiles = fc.tuple(...target.uploads.map((_, index) => filePart(fc.constant(String(index)))));
  const files = fc.oneof(
    { weight: 3, arbitrary: specFiles },
    { weight: 1, arbitrary: fc.array(filePart(fc.constantFrom(...FILE_NAMES)), { maxLength: 3 }) },
  );
  const often = fc.constantFrom(true, true, true, false);
  const parts = fc
    .tuple(fields, files, fc.array(brokenPart, { maxLength: 1 }), often)
    .chain(([[operations, map], fileParts, broken, inOrder]) => {
      const all: Part[] = [
        { kind: 'field', name: 'operations', value: operations },
        { kind: 'field', name: 'map', value: map },
        ...fileParts,
        ...broken,
      ];
      return inOrder ? fc.constant(all) : fc.shuffledSubarray(all, { minLength: 0, maxLength: all.length });
    });
  return fc.record({
    caller: fc.constantFrom(...CALLERS),
    bearer: fc.boolean(),
    parts,
    declared: fc.oneof(
      { weight: 8, arbitrary: fc.constant('boundary' as const) },
      { weight: 1, arbitrary: fc.constantFrom('other' as const, 'none' as const) },
    ),
    newline: fc.oneof(
      { weight: 5, arbitrary: fc.constant('\r\n' as const) },
      { weight: 1, arbitrary: fc.constant('\n' as const) },
    ),
    closing: often,
    cut: fc.option(fc.record({ at: fc.double({ min: 0, max: 1, noNaN: true }), how: fc.constantFrom('end', 'gone') }), {
      freq: 2,
    }),
  }) as fc.Arbitrary<MultipartCase>;
}

function bodyOf(fuzz: MultipartCase): Buffer {
  const n = fuzz.newline;
  const chunks = fuzz.parts.flatMap((part) => {
    const head = `--${BOUNDARY}${n}`;
    if (part.kind === 'field')
      return [Buffer.from(`${head}Content-Disposition: form-data; name="${part.name}"${n}${n}${part.value}${n}`)];
    if (part.kind === 'broken') return [Buffer.from(`${head}${part.headers}${n}${n}${part.value}${n}`)];
    const disposition = `Content-Disposition: form-data; name="${part.name}"; filename="${part.filename}"`;
    return [
      Buffer.from(`${head}${disposition}${n}Content-Type: ${part.type}${n}${n}`),
      Buffer.from(part.content),
      Buffer.from(n),
    ];
  });
  const body = Buffer.concat([...chunks, Buffer.from(fuzz.closing ? `--${BOUNDARY}--${n}` : '')]);
  return fuzz.cut ? body.subarray(0, Math.floor(body.length * fuzz.cut.at)) : body;
}

function headersOf(fuzz: MultipartCase, world: World, length: number): string[] {
  const contentType = {
    boundary: `multipart/form-data; boundary=${BOUNDARY}`,
    other: 'multipart/form-data; boundary=another',
    none: 'multipart/form-data',
  }[fuzz.declared];
  const token = world.tokens[fuzz.caller];
  const credentials = token
    ? [fuzz.bearer ? `Authorization: Bearer ${token}` : `X-Tidepool-Session-Token: ${token}`]
    : [];
  return [
    `Content-Type: ${contentType}`,
    'Apollo-Require-Preflight: true',
    `Content-Length: ${length}`,
    ...credentials,
  ];
}

/** The answer's head and body, `gone` when the client left before one came, `hung` when none came. */
type RawAnswer = { status: number; head: string; body: string } | 'gone' | 'hung';

/** Far beyond any answer to a few kilobytes: a request still open then waits for something that never comes. */
const HUNG_AFTER_MS = 20_000;

/** Sends the case on its own connection, byte for byte as generated. */
function sendRaw(app: TestApp, fuzz: MultipartCase, world: World, body: Buffer): Promise<RawAnswer> {
  const url = new URL(app.url);
  const gone = fuzz.cut?.how === 'gone';
  // A client that goes away announced the whole body; one whose body ends announced what it sent.
  const length = gone ? body.length + 1 : body.length;
  const head = ['POST /graphql HTTP/1.1', `Host: ${url.host}`, 'Connection: close', ...headersOf(fuzz, world, length)];
  return new Promise((resolve) => {
    const socket = net.connect(Number(url.port), url.hostname);
    let hung = false;
    const watchdog = setTimeout(() => {
      hung = true;
      socket.destroy();
    }, HUNG_AFTER_MS);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    // The server may answer and close before the body is all written (an early 400).
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(watchdog);
      const text = Buffer.concat(chunks).toString();
      if (hung) return resolve('hung');
      if (!text) return resolve('gone');
      const split = text.indexOf('\r\n\r\n');
      const status = Number(text.split(' ')[1]);
      resolve({ status, head: text.slice(0, split), body: decodeChunked(text, text.slice(split + 4)) });
    });
    socket.write(`${head.join('\r\n')}\r\n\r\n`);
    socket.write(body, () => {
      if (gone) socket.destroy();
    });
  });
}

/** Uploads still announced or with a temporary file: what a request that ended must not leave. */
async function uploadsInFlight(fuzzer: Fuzzer): Promise<number> {
  const rows = await fuzzer.app.database.query('select count(*)::int as count from pending_objects');
  const incoming = path.join(fuzzer.app.config.dataDir, 'objects', 'incoming');
  return (rows[0].count as number) + (fs.existsSync(incoming) ? fs.readdirSync(incoming).length : 0);
}

/**
 * Sends a case and checks what every malformed body must leave: an answer below 500 that says
 * what went wrong in GraphQL's error format, a service that still answers /healthz, and no upload
 * left announced or half-written once the request is over (the timeout is an hour).
 */
export async function multipartExchange(
  fuzzer: Fuzzer,
  target: MultipartTarget,
  fuzz: MultipartCase,
): Promise<Exchange> {
  const body = bodyOf(fuzz);
  const answer = await sendRaw(fuzzer.app, fuzz, fuzzer.world, body);
  const problems: string[] = [];
  const health = await fetch(`${fuzzer.app.url}/healthz`).then(
    (reply) => reply.status,
    (error: Error) => error.message,
  );
  if (health !== 200) problems.push(`/healthz answered ${health} after the case`);
  await eventually(async () => (await uploadsInFlight(fuzzer)) === 0, 'no upload is in flight', 5_000).catch(
    (error: Error) => problems.push(error.message),
  );
  if (answer === 'hung') problems.push(`no answer and the connection still open after ${HUNG_AFTER_MS} ms`);
  if (answer === 'gone' || answer === 'hung')
    return {
      status: 0,
      answer: answer === 'gone' ? 'the client left before an answer' : 'no answer',
      request: body.toString('latin1'),
      refused: false,
      mutating: true,
      outcome: answer,
      problems,
    };
  let parsed:
    | {
        data?: Record<string, unknown> | null;
        errors?: { path?: unknown[]; extensions?: { code?: unknown; requestId?: unknown } }[];
      }
    | undefined;
  try {
    parsed = JSON.parse(answer.body) as typeof parsed;
  } catch {
    // A 408 or 413 from Node itself has no body; anything else must be GraphQL's format.
    if (answer.status < 408 || answer.body) problems.push(`the answer is not JSON: ${answer.body.slice(0, 200)}`);
  }
  for (const error of parsed?.errors ?? [])
    if (typeof error.extensions?.code !== 'string' || typeof error.extensions.requestId !== 'string')
      problems.push(`an error without code or requestId: ${JSON.stringify(error)}`);
  // A refusal: nothing ran (an error at the edge), or every root field failed. A fault in the
  // body after a mutation completed is answered 400 too, and that mutation's change stays.
  const errors = parsed?.errors ?? [];
  const failed = new Set(errors.map((error) => error.path?.[0]));
  const ran = parsed?.data != null || errors.some((error) => error.path);
  const tookEffect = ran && target.fields.some((field) => !failed.has(field));
  return {
    status: answer.status,
    answer: answerText(answer.status, new Headers(), `${answer.head}\n\n${answer.body}`),
    request: body.toString('latin1'),
    refused: answer.status >= 400 && !tookEffect,
    mutating: target.uploads.length > 0,
    outcome: `${answer.status} ${String(parsed?.errors?.[0]?.extensions?.code ?? 'ok')}`,
    problems,
  };
}
