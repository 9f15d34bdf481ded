/**
 * The OpenAPI document in parts an agent can read: the whole document is
 * over 400 KB (about 110,000 tokens), more than most models take at once.
 * Each part holds the operations of one tag (an area such as courses, or
 * oauth), with the document's info, servers and components, so it stands on
 * its own; the index lists the parts with their operations. The parts are cut
 * from the document GET /openapi.json serves, so the two never disagree.
 */

type Operation = { tags?: string[]; summary?: string; [key: string]: unknown };
type PathItem = Record<string, Operation | unknown>;
interface OpenApiDocument {
  openapi: string;
  info: unknown;
  servers?: unknown;
  components?: unknown;
  paths: Record<string, PathItem>;
  tags?: { name: string; description?: string }[];
}

export interface OpenApiParts {
  /** The index: each part with its URI and operations. */
  index: string;
  /** Each part's document and its operations ("GET /api/v1/courses: List courses"), by its name (the tag). */
  parts: ReadonlyMap<string, { text: string; operations: string[] }>;
}

const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/** An operation without tags is filed under this part. */
const UNTAGGED = 'other';

function split(doc: OpenApiDocument, partUri: (name: string) => string, fullUrl: string): OpenApiParts {
  const paths = new Map<string, Record<string, PathItem>>();
  const operations = new Map<string, string[]>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!METHODS.has(method)) continue;
      const operation = op as Operation;
      const name = operation.tags?.[0] ?? UNTAGGED;
      const inPart = paths.get(name) ?? {};
      inPart[path] = { ...(inPart[path] ?? {}), [method]: operation };
      paths.set(name, inPart);
      operations.set(name, [...(operations.get(name) ?? []), `${method.toUpperCase()} ${path}${operation.summary ? `: ${operation.summary}` : ''}`]);
    }
  }
  const names = [...paths.keys()].sort();
  const parts = new Map<string, { text: string; operations: string[] }>();
  for (const name of names) {
    const tag = doc.tags?.find((t) => t.name === name);
    const text = JSON.stringify({ openapi: doc.openapi, info: doc.info, servers: doc.servers, components: doc.components, tags: tag ? [tag] : undefined, paths: paths.get(name) });
    parts.set(name, { text, operations: operations.get(name) ?? [] });
  }
  const index = JSON.stringify(
    {
      openapi: doc.openapi,
      info: doc.info,
      servers: doc.servers,
      whole_document: fullUrl,
      parts: names.map((name) => ({ name, uri: partUri(name), operations: operations.get(name) })),
    },
    null,
    1,
  );
  return { index, parts };
}

/** The last document split and its parts: the document is built once per process, so it is split once. */
let last: { source: string; parts: OpenApiParts } | undefined;

export function openApiParts(source: string, partUri: (name: string) => string, fullUrl: string): OpenApiParts {
  if (last?.source !== source) last = { source, parts: split(JSON.parse(source) as OpenApiDocument, partUri, fullUrl) };
  return last.parts;
}
