import type { Profile } from "../../provider/api/schemas";

/** The spec's response envelope around one payload. */
export function envelope(
  profile: Profile | null,
  payload: unknown,
  extra: {
    errorCode?: string | null;
    errors?: string[];
    warnings?: string[];
    errorDetails?: unknown[];
    metadata?: Record<string, unknown>;
  } = {},
) {
  const errors = extra.errors ?? [];
  const warnings = extra.warnings ?? [];
  return {
    profile,
    payload,
    errorCode: extra.errorCode ?? null,
    errors,
    hasErrors: errors.length > 0,
    warnings,
    hasWarnings: warnings.length > 0,
    errorDetails: extra.errorDetails ?? [],
    metadata: extra.metadata ?? {},
  };
}
