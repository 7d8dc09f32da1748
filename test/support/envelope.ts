/**
 * The spec's response envelope of a successful answer, as a test expects it: the account's
 * profile, the payload, no error or warning, and whatever `extra` sets besides.
 */
export function successEnvelope<P>(
  profile: unknown,
  payload: P,
  extra: Partial<Record<string, unknown>> = {},
) {
  return {
    profile,
    payload,
    errorCode: null,
    errors: [],
    hasErrors: false,
    warnings: [],
    hasWarnings: false,
    errorDetails: [],
    metadata: {},
    ...extra,
  };
}
