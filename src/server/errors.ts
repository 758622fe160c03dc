/**
 * An error that already knows the HTTP reply it deserves. Parsers and decoders throw it so the
 * route layer never has to guess a status; the message is sent to the client verbatim, so it must
 * name what was wrong (with the field path for parse errors) and never contain secrets.
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export const badRequest = (message: string): HttpError => new HttpError(400, message);
export const payloadTooLarge = (message: string): HttpError => new HttpError(413, message);
export const unsupportedMediaType = (message: string): HttpError => new HttpError(415, message);
