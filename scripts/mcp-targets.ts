/**
 * `npx tsx scripts/mcp-targets.ts`: what each kind of caller finds in
 * tools/list, as the server builds it (src/mcp/tool-list.ts): how many tools,
 * how many bytes, the largest definition, and whether every listed tool is
 * one the caller may call. The same figures are held to their limits over
 * real HTTP in test/mcp/mcp-toolsets.test.ts; times are measured by
 * `npm run bench -- --only=catalog,mcp-list,mcp`, never here.
 */
import { ROLE_SCOPES, type Role } from '../src/access/roles.ts';
import { SCOPE_NAMES, type Scope } from '../src/access/scopes.ts';
import { AREA_LIST } from '../src/platform/areas.ts';
import type { Caller } from '../src/resource/guard.ts';
import { listedTools, toolAccess, toolList } from '../src/mcp/tool-list.ts';
import { TOOLSET_NAMES, type ToolsetName } from '../src/mcp/toolsets.ts';

interface Row {
  caller: string;
  scopes: Scope[] | undefined;
  toolsets: ToolsetName[] | 'default';
}

const ROWS: Row[] = [
  { caller: 'anonymous', scopes: undefined, toolsets: 'default' },
  ...(['student', 'lecturer', 'owner'] as Role[]).map((role) => ({ caller: `${role}, by default`, scopes: [...ROLE_SCOPES[role]], toolsets: 'default' as const })),
  { caller: 'owner, every toolset', scopes: [...ROLE_SCOPES.owner], toolsets: [...TOOLSET_NAMES] },
];

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

/** The platform's areas, as its scopes name them (courses, storage, account ...). */
const family = (scope: string) => scope.split(':')[0]!;
const FAMILIES = [...new Set(SCOPE_NAMES.filter((s) => s.includes(':')).map(family))];

console.log('| caller | tools | bytes | largest tool | areas reachable | every tool callable |');
console.log('|---|---|---|---|---|---|');
for (const row of ROWS) {
  const caller = (row.scopes ? { kind: 'token', scopes: new Set(row.scopes) } : { kind: 'anonymous' }) as Caller;
  const access = toolAccess(caller, row.toolsets, false);
  const list = toolList(access);
  const sizes = list.map((t) => ({ name: t.name, bytes: Buffer.byteLength(JSON.stringify(t)) })).sort((a, b) => b.bytes - a.bytes);
  // An area is reachable when a listed tool works in it: its own scopes, or the areas a record tool names.
  const recordAreas = (list.find((t) => t.name === 'list_records')?.inputSchema.properties as { area?: { enum?: string[] } } | undefined)?.area?.enum ?? [];
  const reached = new Set([
    ...listedTools(access).flatMap((t) => (t.name === 'sign_in' ? [] : [...t.scopes, ...(t.optionalScopes ?? [])].map(family))),
    ...AREA_LIST.filter((a) => recordAreas.includes(a.name)).map((a) => family(a.readScope)),
  ]);
  const areas = FAMILIES.filter((f) => reached.has(f));
  // sign_in is the anonymous caller's way in: listed so that calling it starts the sign-in.
  const callable = listedTools(access).every((t) => t.name === 'sign_in' || t.scopes.every((s) => access.scopes.has(s)));
  console.log(
    `| ${row.caller} | ${list.length} | ${kb(Buffer.byteLength(JSON.stringify(list)))} | ${sizes[0]?.name} ${kb(sizes[0]?.bytes ?? 0)} | ${areas.length} of ${FAMILIES.length} | ${callable ? 'yes' : 'no'} |`,
  );
}
