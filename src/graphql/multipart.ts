import Busboy from 'busboy';
import type { NextFunction, Request, Response } from 'express';
import { AsyncLocalStorage } from 'node:async_hooks';
import { PassThrough, type Readable } from 'node:stream';
import { AppError, invalid } from '../kernel/errors';
import { JSON_BODY_LIMIT_BYTES } from '../http/json-body';
import { Upload, type UploadedFile } from '../kernel/upload';

export const MAX_FILES_PER_REQUEST = 10;

interface PendingFile {
  resolve(file: UploadedFile): void;
  reject(error: unknown): void;
  promise: Promise<UploadedFile>;
  stream?: Readable;
  claimed: boolean;
  /** Nobody will read it: drain it when it arrives so the files after it can flow. */
  discarded: boolean;
}

function pendingFile(): PendingFile {
  let resolve!: (file: UploadedFile) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<UploadedFile>((ok, fail) => ((resolve = ok), (reject = fail)));
  promise.catch(() => undefined);
  return { resolve, reject, promise, claimed: false, discarded: false };
}

/** Puts `value` at a dotted path such as `variables.content` or `0.variables.files.1`. */
function place(target: unknown, path: string, value: unknown): void {
  const parts = path.split('.');
  let node = target as Record<string, unknown> | undefined;
  for (const part of parts.slice(0, -1)) node = node?.[part] as Record<string, unknown> | undefined;
  const last = parts[parts.length - 1];
  if (node === null || typeof node !== 'object' || !(last in node))
    throw invalid(`multipart map path "${path}" does not point at a variable of the operation`, 'map');
  node[last] = value;
}

function parseJsonField(name: string, value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    throw invalid(`multipart field "${name}" is not valid JSON`, name);
  }
}

function parseMap(value: string): Record<string, string[]> {
  const map = parseJsonField('map', value);
  const valid =
    map !== null &&
    typeof map === 'object' &&
    !Array.isArray(map) &&
    Object.values(map).every((paths) => Array.isArray(paths) && paths.every((path) => typeof path === 'string'));
  if (!valid) throw invalid('multipart field "map" must map file names to arrays of variable paths', 'map');
  if (Object.keys(map as object).length > MAX_FILES_PER_REQUEST)
    throw invalid(`a request may carry at most ${MAX_FILES_PER_REQUEST} files`, 'map');
  return map as Record<string, string[]>;
}

/**
 * GraphQL multipart requests: `operations` and `map` first, then the files. The operation starts
 * as soon as the map is known and each Upload waits for its part, so bytes stream from the
 * socket to the object store without being buffered. Files no resolver claims are drained.
 */
export const isMultipart = (req: Request) => /^multipart\/form-data/i.test(req.get('content-type') ?? '');

/** A multipart request whose operation has started: what the handler waits for before answering. */
interface BodyInFlight {
  files: Map<string, PendingFile>;
  /** Set once the operation is done: the files still to come are read into nothing. */
  draining: boolean;
  /** Resolves once busboy has read the whole body, with what was wrong with it, if anything. */
  read: Promise<AppError | undefined>;
}

const bodiesInFlight = new WeakMap<Request, BodyInFlight>();

/**
 * One operations field, one map field, and the files, each within the content size limit. Busboy
 * stops a file one byte past it, which the content store refuses as TOO_LARGE.
 */
const busboyLimits = (contentSizeLimitBytes: number) => ({
  fieldSize: JSON_BODY_LIMIT_BYTES,
  fields: 2,
  files: MAX_FILES_PER_REQUEST,
  fileSize: contentSizeLimitBytes + 1,
});

/** Hands a file part to the upload waiting for it, or reads it into nothing when none will read it. */
function takeFile(inFlight: BodyInFlight | undefined, name: string, stream: Readable, info: Busboy.FileInfo): void {
  // A body cut off mid-file fails the file's stream too; busboy reports the same fault, and a
  // reader sees it as the stream's `errored`. Unheard, the error event would end the process.
  stream.on('error', () => undefined);
  const file = inFlight?.files.get(name);
  // Every part nobody will read is read into nothing: unread, it would keep the body from ending.
  if (!file || file.stream || file.discarded || inFlight!.draining) return void stream.resume();
  // The operation waits for a file behind this one: holding this one would hold that one back.
  if ([...inFlight!.files.values()].some((other) => other !== file && other.claimed && !other.stream)) {
    discard(file);
    return void stream.resume();
  }
  file.stream = stream;
  file.resolve({ stream, mediaType: info.mimeType, filename: info.filename });
}

/** `contentSizeLimitBytes`: CONTENT_SIZE_LIMIT_BYTES (src/config.ts), the most one file may hold. */
export function graphqlMultipart(onError: (error: AppError, res: Response) => void, contentSizeLimitBytes: number) {
  const limits = busboyLimits(contentSizeLimitBytes);
  return (req: Request, res: Response, next: NextFunction): void => {
    if (!isMultipart(req)) return next();
    let busboy: Busboy.Busboy;
    try {
      busboy = Busboy({ headers: req.headers, limits });
    } catch (error) {
      return onError(invalid(`malformed multipart request: ${(error as Error).message}`), res);
    }
    // busboy's events come from the socket's context: refusals are answered in the request's own
    // (its request id).
    const inRequestScope = AsyncLocalStorage.snapshot();
    let operations: unknown;
    let inFlight: BodyInFlight | undefined;
    let fault: AppError | undefined;
    let settle!: (found: AppError | undefined) => void;
    const read = new Promise<AppError | undefined>((resolve) => (settle = resolve));
    const fail = (error: unknown) => {
      if (fault) return;
      fault =
        error instanceof AppError
          ? error
          : invalid(`malformed multipart request: ${error instanceof Error ? error.message : String(error)}`);
      for (const file of inFlight?.files.values() ?? []) file.reject(fault);
      req.unpipe(busboy);
      req.resume();
      // Fails the file being read, so its upload lets go of its temporary file and its announcement now.
      busboy.destroy(fault);
      if (!inFlight) inRequestScope(onError, fault, res);
      settle(fault);
    };

    busboy.on('field', (name, value) => {
      try {
        if (name === 'operations') operations = parseJsonField('operations', value);
        else if (name === 'map' && operations !== undefined) {
          const map = parseMap(value);
          const files = new Map(Object.keys(map).map((key) => [key, pendingFile()]));
          for (const [key, paths] of Object.entries(map)) {
            const upload = new Upload(() => claim(files, key));
            for (const path of paths) place(operations, path, upload);
          }
          req.body = operations;
          const started: BodyInFlight = { files, draining: false, read };
          inFlight = started;
          bodiesInFlight.set(req, started);
          // Answers refused before the operation ran (a bad token) do not wait for the body.
          res.on('finish', () => drainRest(started));
          next();
        } else throw invalid('multipart fields must be "operations" then "map", before any file', name);
      } catch (error) {
        fail(error);
      }
    });
    busboy.on('file', (name, stream, info) => takeFile(inFlight, name, stream, info));
    busboy.on('error', fail);
    busboy.on('close', () => {
      if (!inFlight) return fail(invalid('multipart request has no "operations" and "map" fields'));
      for (const [name, file] of inFlight.files)
        if (!file.stream) file.reject(invalid(`file "${name}" is missing from the request`));
      settle(fault);
    });
    // A client gone mid-body: fail what is being read at once, as the REST upload routes do.
    const cutOff = () => {
      if (!req.readableEnded) fail(invalid('the request body ended before it was complete'));
    };
    req.on('error', cutOff);
    req.once('close', cutOff);
    req.pipe(busboy);
  };
}

/**
 * Called by the handler once the operation has answered: reads the rest of the body into nothing
 * and resolves when it has been read, with what was wrong with it (cut off, malformed), if
 * anything. Resolves at once for a request that was not multipart.
 */
export function multipartBodyRead(req: Request): Promise<AppError | undefined> {
  const inFlight = bodiesInFlight.get(req);
  if (!inFlight) return Promise.resolve(undefined);
  drainRest(inFlight);
  return inFlight.read;
}

function drainRest(inFlight: BodyInFlight): void {
  inFlight.draining = true;
  drainUnclaimed(inFlight.files);
}

/**
 * Files arrive in order, so claiming one means the unclaimed files before it will never be read
 * (mutations run one after another): drain them, or the one wanted would never arrive. So are
 * files that came first and wait unread. A file skipped that way cannot be read afterwards.
 */
function claim(files: Map<string, PendingFile>, key: string): Promise<UploadedFile> {
  const file = files.get(key)!;
  file.claimed = true;
  if (file.discarded) return Promise.resolve(skippedFile(key));
  for (const [name, other] of files) {
    if (name === key) break;
    if (!other.claimed) discard(other);
  }
  if (!file.stream) for (const other of files.values()) if (other.stream && !other.claimed) discard(other);
  return file.promise;
}

/** A file skipped, as its resolver gets it: the resolver's checks come first, reading it fails naming why. */
function skippedFile(key: string): UploadedFile {
  const stream = new PassThrough();
  stream.on('error', () => undefined);
  stream.destroy(
    invalid(`file "${key}" was skipped to reach a file the operation read first; send files in the order it uses them`),
  );
  return { stream, mediaType: 'application/octet-stream' };
}

function discard(file: PendingFile): void {
  file.discarded = true;
  if (file.stream && !file.stream.readableFlowing) file.stream.resume();
}

/** Once the operation is done, a file nobody finished reading would hold the body back; read it into nothing. */
function drainUnclaimed(files: Map<string, PendingFile>): void {
  for (const file of files.values()) if (!file.claimed || !file.stream?.readableEnded) discard(file);
}
