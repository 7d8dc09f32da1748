/**
 * Variable-image checks, decided from the URL alone (the sandbox never fetches it), so that tests can
 * predict them. Rules, in order (the first that applies wins); docs/sandbox.md lists the same:
 *
 * 1. blank: `missing` (only for a slot the batch uses: some recipient of the batch fills it, or the
 *    template requires it); the template default is used.
 * 2. not an absolute http(s) URL: `unsupportedOrBroken`, code IMAGE_BROKEN_LINK, httpStatus 0.
 * 3. host ending in `.invalid` or `.example`, or a path segment `404`, `missing` or `not-found`:
 *    `doesNotExist`, code IMAGE_NOT_FOUND, httpStatus 404.
 * 4. file extension other than jpg, jpeg, png, gif, webp: `unsupportedOrBroken`, code
 *    IMAGE_UNSUPPORTED_FORMAT, httpStatus 200.
 * 5. dimensions `WxH` in the file name (`photo-600x400.jpg`) or `w`/`h` query parameters: smaller
 *    than 600 px on the short side is `lowDpi` (IMAGE_LOW_DPI); a ratio other than 3:2 or 2:3
 *    (within 2%) is `aspectRatioMismatch` (IMAGE_ASPECT_RATIO_MISMATCH). Both with httpStatus 200.
 * 6. otherwise `accepted`.
 */
export type ImageOutcome =
  | "accepted"
  | "aspectRatioMismatch"
  | "lowDpi"
  | "unsupportedOrBroken"
  | "missing"
  | "doesNotExist";

export interface ImageIssue {
  field: string;
  code: string;
  message: string;
  httpStatus: number;
}

export const IMAGE_FIELDS = ["image1", "image2", "image3", "image4", "image5", "image6"] as const;
const FORMATS = new Set(["jpg", "jpeg", "png", "gif", "webp"]);
export const MIN_IMAGE_PX = 600;

export function checkImage(
  field: string,
  value: string | null | undefined,
): { outcome: ImageOutcome; issue?: ImageIssue } {
  if (value == null || value.trim() === "") {
    return {
      outcome: "missing",
      issue: {
        field,
        code: "IMAGE_MISSING",
        message: `${field} is blank; the template default is used`,
        httpStatus: 0,
      },
    };
  }
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return broken(field, `${field} is not a URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    return broken(field, `${field} is not an http(s) URL`);
  const segments = url.pathname.split("/").map((s) => s.toLowerCase());
  if (
    /\.(invalid|example)$/i.test(url.hostname) ||
    segments.some((s) => ["404", "missing", "not-found"].includes(s))
  ) {
    return {
      outcome: "doesNotExist",
      issue: {
        field,
        code: "IMAGE_NOT_FOUND",
        message: `${field} does not exist (HTTP 404)`,
        httpStatus: 404,
      },
    };
  }
  const file = segments[segments.length - 1] ?? "";
  const ext = /\.([a-z0-9]+)$/.exec(file)?.[1];
  if (!ext || !FORMATS.has(ext)) {
    return {
      outcome: "unsupportedOrBroken",
      issue: {
        field,
        code: "IMAGE_UNSUPPORTED_FORMAT",
        message: `${field} is not a JPEG, PNG, GIF or WebP image`,
        httpStatus: 200,
      },
    };
  }
  const fromName = /(\d+)x(\d+)/.exec(file);
  const w = Number(fromName?.[1] ?? url.searchParams.get("w") ?? Number.NaN);
  const h = Number(fromName?.[2] ?? url.searchParams.get("h") ?? Number.NaN);
  if (Number.isFinite(w) && Number.isFinite(h) && w > 0 && h > 0) {
    if (Math.min(w, h) < MIN_IMAGE_PX) {
      return {
        outcome: "lowDpi",
        issue: {
          field,
          code: "IMAGE_LOW_DPI",
          message: `${field} is ${w}x${h}; at least ${MIN_IMAGE_PX} px on the short side prints sharply`,
          httpStatus: 200,
        },
      };
    }
    const ratio = Math.max(w, h) / Math.min(w, h);
    if (Math.abs(ratio - 1.5) / 1.5 > 0.02) {
      return {
        outcome: "aspectRatioMismatch",
        issue: {
          field,
          code: "IMAGE_ASPECT_RATIO_MISMATCH",
          message: `${field} is ${w}x${h}; the image area is 3:2`,
          httpStatus: 200,
        },
      };
    }
  }
  return { outcome: "accepted" };
}

function broken(field: string, message: string): { outcome: ImageOutcome; issue: ImageIssue } {
  return {
    outcome: "unsupportedOrBroken",
    issue: { field, code: "IMAGE_BROKEN_LINK", message, httpStatus: 0 },
  };
}
