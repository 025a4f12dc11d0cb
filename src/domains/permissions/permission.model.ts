/**
 * The permissions an account owner can grant. A model of its own so the access policy and the
 * permission loaders both depend on it instead of on each other.
 */
export const GRANTABLE_PERMISSIONS = ['custodian', 'view', 'upload', 'note'] as const;
export type Permission = (typeof GRANTABLE_PERMISSIONS)[number];
