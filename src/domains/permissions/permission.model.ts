/**
 * The permissions an account owner can grant. A model of its own so the access policy and the
 * permission loaders both depend on it instead of on each other.
 */
export const GRANTABLE_PERMISSIONS = ['custodian', 'view', 'upload', 'note'] as const;
export type Permission = (typeof GRANTABLE_PERMISSIONS)[number];

/**
 * Permissions held on an account, and the clinic they reach the caller through: the clinic's own
 * patient grant, or a direct grant someone made using that clinic's access (null: a grant the
 * account, or one of its own custodians, made directly).
 */
export interface Grant {
  permissions: readonly Permission[];
  clinicId: string | null;
}
