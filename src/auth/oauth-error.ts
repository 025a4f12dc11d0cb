/** An OAuth 2.0 error as RFC 6749 §5.2 shapes it, for the endpoints Islet serves itself. */
export class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly status = 400,
  ) {
    super(description);
  }
}
