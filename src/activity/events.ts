/**
 * What the activity log records, each with the words the connected-apps
 * page shows for it: the one list /openapi.json, the API's filters and the
 * MCP tool take the names from. Writes are `record.*` whatever the record
 * (a course, a school setting, a file, a webhook); the rest are security
 * events.
 */
export const ACTIVITY_EVENTS = {
  'record.created': 'created',
  'record.updated': 'changed',
  'record.deleted': 'deleted',
  sign_in: 'signed in',
  sign_in_failed: 'failed to sign in',
  'consent.given': 'was allowed access',
  'consent.narrowed': 'was allowed less than it asked for',
  'consent.extended': 'had its access extended',
  'app.disconnected': 'was disconnected',
  'password.changed': 'changed the password',
  'tokens.revoked': 'had a token revoked',
  'confirmation.answered': 'asked the person to confirm',
} as const;

export type ActivityEvent = keyof typeof ACTIVITY_EVENTS;

export const ACTIVITY_EVENT_NAMES = Object.keys(ACTIVITY_EVENTS) as ActivityEvent[];

export const isActivityEvent = (v: unknown): v is ActivityEvent => typeof v === 'string' && Object.hasOwn(ACTIVITY_EVENTS, v);

/**
 * What an entry names as its record type when the record is not one of an
 * area's (src/platform/areas.ts), whose entries name the area.
 */
export const OTHER_RECORDS = {
  school: 'school',
  appearance: 'appearance',
  files: 'files',
  webhooks: 'webhook_subscriptions',
  account: 'account',
} as const;

/** How a change reached Lyceum: the REST API, an MCP tool, a page in the browser, or the `lyceum` command. */
export const ACTIVITY_CHANNELS = ['api', 'mcp', 'web', 'cli'] as const;
export type ActivityChannel = (typeof ACTIVITY_CHANNELS)[number];

/**
 * Who vouches for the app that acted: it registered itself (RFC 7591), the
 * school added it (`lyceum clients add`), or it is known by a client ID
 * metadata document at its own https URL.
 */
export const CLIENT_KINDS = ['self_registered', 'school', 'metadata_document'] as const;
export type ClientKind = (typeof CLIENT_KINDS)[number];
