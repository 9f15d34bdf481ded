import { ENDPOINTS } from '../oauth/endpoints.ts';
import { OPENAPI_VERSION } from '../http/routes/route-docs.ts';
import { AREA_LIST } from '../platform/areas.ts';
import { API_PREFIX } from '../platform/routes/paths.ts';
import { PRM_PATHS } from '../resource/protected-resources.ts';
import { DOCUMENT_PATHS, METADATA_PATHS } from './paths.ts';
import type { SchoolProfile } from './school.ts';

const line = (s: string) => s.replace(/\s+/g, ' ').trim();
/** Link text must not close the bracket early. */
const linkText = (s: string) => line(s).replace(/[[\]\\]/g, (c) => `\\${c}`);
const link = (title: string, url: string, note: string) => `- [${linkText(title)}](${url}): ${line(note)}`;

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * /llms.txt (https://llmstxt.org/): H1 with the site's name, a blockquote
 * summary, then sections of links. Every URL is absolute, on the issuer.
 */
export function llmsText(issuer: string, school: SchoolProfile): string {
  const url = (path: string) => issuer + path;
  const summary =
    school.description ??
    `An online school on Lyceum: courses, membership plans, digital products and events. Its catalog is readable anonymously over HTTP and MCP; everything else needs an OAuth 2.0 access token (authorization code with PKCE).`;

  const catalog = AREA_LIST.filter((a) => a.publicRead).map((a) => {
    const fields = Object.entries(a.fields)
      .filter(([, f]) => f.public)
      .map(([name]) => name);
    const which = a.publicRead?.upcoming ? `Upcoming published ${a.label}s` : a.publicRead?.published ? `Published ${a.label}s` : `${capitalise(a.label)}s`;
    return link(capitalise(`${a.label}s`), url(`${API_PREFIX}${a.path}`), `${which} as JSON, no token needed (fields: ${fields.join(', ')}). With ${a.readScope} a token sees every ${a.label}.`);
  });

  const sections: string[] = [
    `# ${line(school.name)}`,
    `> ${line(summary)}`,
    line(
      `Anonymous requests (no Authorization header) are served and never challenged. Clients register themselves at ${url(ENDPOINTS.registration)} (loopback redirect URIs only) and use the authorization code flow with PKCE S256; ${url(DOCUMENT_PATHS.auth)} walks through it with curl.`,
    ),
    [
      '## Docs',
      link('Authentication walkthrough', url(DOCUMENT_PATHS.auth), 'OAuth 2.0 + OpenID Connect for CLI tools and agents: registration, PKCE, tokens, scopes, errors, with a curl walkthrough.'),
      link('OpenAPI description', url(DOCUMENT_PATHS.openapi), `OpenAPI ${OPENAPI_VERSION} document of the HTTP API and the OAuth endpoints, with the scopes each operation needs.`),
      link('Pricing', url(DOCUMENT_PATHS.pricing), 'What the school sells and for how much, generated from the live catalog.'),
      link('Authorization server metadata', url(METADATA_PATHS.authorizationServer), 'RFC 8414: every endpoint, grant type and scope; authoritative if other documents disagree.'),
      link('OpenID Connect discovery', url(METADATA_PATHS.openidConfiguration), 'The same facts as the authorization server metadata, for OpenID Connect clients.'),
      link('Protected resource metadata (API)', url(PRM_PATHS.api), `RFC 9728: the API, resource identifier ${issuer}.`),
      link('Protected resource metadata (MCP)', url(PRM_PATHS.mcp), `RFC 9728: the MCP server, resource identifier ${url(DOCUMENT_PATHS.mcp)}.`),
    ].join('\n'),
    ['## MCP', link('MCP server', url(DOCUMENT_PATHS.mcp), 'Model Context Protocol server (Streamable HTTP) for anonymous reads of the public catalog.')].join('\n'),
    ['## Catalog', ...catalog, link('School', url(`${API_PREFIX}/school`), "The school's profile (name, description, currency) as JSON.")].join('\n'),
  ];
  return `${sections.join('\n\n')}\n`;
}
