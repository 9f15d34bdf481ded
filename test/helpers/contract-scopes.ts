/**
 * The 38 exact scope identifiers of the access contract, in the order it
 * lists them, written out by hand: tests compare what the server publishes
 * with this list, never with the product's own SCOPES, so a scope renamed
 * or dropped there fails a test instead of moving the expectation with it.
 */
export const CONTRACT_SCOPES = [
  'openid', 'profile', 'email', 'courses:read', 'courses:write', 'students:read', 'students:write', 'members:read',
  'members:write', 'analytics:read', 'curriculum:read', 'curriculum:write', 'orders:read', 'school:read', 'school:write',
  'appearance:read', 'appearance:write', 'events:read', 'events:write', 'membership_plans:read', 'membership_plans:write',
  'coupons:read', 'coupons:write', 'posts:read', 'posts:write', 'subscriptions:read', 'subscriptions:write',
  'digital_products:read', 'digital_products:write', 'comments:read', 'lecturers:read', 'lecturers:write', 'storage:write',
  'forms:read', 'pages:read', 'pages:write', 'account:read', 'account:write',
];
