import type { Profile } from "../../provider/api/schemas";

/** The spec's response envelope around one payload. */
export function envelope(
  profile: Profile | null,
  payload: unknown,
  extra: {
    errorCode?: string | null | undefined;
    errors?: string[] | undefined;
    warnings?: string[] | undefined;
    errorDetails?: unknown[] | undefined;
    metadata?: Record<string, unknown> | undefined;
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
