/**
 * Fault injection for the reliability tests of the client and the provider.
 *
 * A fault matches on method (any when omitted) and path (the request path without its query; `*`
 * matches one path segment or part of one, `**` any number of segments, `{name}` is the same as `*`).
 * Matching faults are tried in the order they were added; the first that fires is used.
 *
 * - before (default): the request never takes effect: `status` answers with that status, `reset`
 *   destroys the connection, `delay` waits and then lets the request through.
 * - after (`after: true`): the request takes effect (its writes are committed), then `status`
 *   replaces the answer, `reset` destroys the connection instead of answering, `delay` holds the
 *   answer back.
 *
 * `times` (default: unlimited) counts firings; `probability` (default 1) is tried on each match and a
 * miss does not use up a time.
 */
export interface FaultSpec {
  method?: string | undefined;
  path: string;
  kind: "status" | "reset" | "delay";
  status?: number | undefined;
  delayMs?: number | undefined;
  times?: number | undefined;
  probability?: number | undefined;
  after?: boolean | undefined;
  /** With `status: 429`: the Retry-After header, in seconds (default 1). */
  retryAfterSeconds?: number | undefined;
}

export interface Fault extends FaultSpec {
  id: number;
  remaining: number;
  fired: number;
  regex: RegExp;
}

function globToRegex(glob: string): RegExp {
  let source = "";
  const pattern = glob.replace(/\{[^}/]+\}/g, "*");
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === "*" && pattern[i + 1] === "*") {
      source += ".*";
      i++;
    } else if (c === "*") {
      source += "[^/]*";
    } else {
      source += c.replace(/[.+?^${}()|[\]\\]/g, "\\$&");
    }
  }
  return new RegExp(`^${source}$`);
}

export class FaultTable {
  private faults: Fault[] = [];
  private nextId = 1;

  constructor(private readonly random: () => number = Math.random) {}

  add(spec: FaultSpec): Fault {
    const fault: Fault = {
      ...spec,
      method: spec.method?.toUpperCase(),
      id: this.nextId++,
      remaining: spec.times ?? Number.POSITIVE_INFINITY,
      fired: 0,
      regex: globToRegex(spec.path),
    };
    this.faults.push(fault);
    return fault;
  }

  clear(): void {
    this.faults = [];
  }

  list(): Fault[] {
    return [...this.faults];
  }

  /** The fault that fires for this request, if any; uses up one of its times. */
  take(method: string, path: string): Fault | undefined {
    for (const fault of this.faults) {
      if (fault.remaining <= 0) continue;
      if (fault.method && fault.method !== method.toUpperCase()) continue;
      if (!fault.regex.test(path)) continue;
      if (fault.probability !== undefined && this.random() >= fault.probability) continue;
      fault.remaining--;
      fault.fired++;
      return fault;
    }
    return undefined;
  }
}
