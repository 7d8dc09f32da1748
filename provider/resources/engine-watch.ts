/**
 * Ends the dynamic-provider process when the Pulumi engine that started it is gone.
 *
 * The engine starts `@pulumi/pulumi/cmd/dynamic-provider` through a shell script and stops it when
 * it closes its plugins. An engine that is killed (SIGKILL, a crash) closes nothing, and the
 * provider would serve its gRPC port forever. Its parent process is no help: it is the wrapping
 * shell, which outlives the engine. The engine's own address is: the engine serves it until it has
 * closed every plugin, so a refused connection there means the engine is gone.
 */
import * as net from "node:net";

/** How often the engine's address is probed. */
export const ENGINE_PROBE_INTERVAL_MS = 1000;

/**
 * The engine's address (`127.0.0.1:<port>`, the last argument) when this process is Pulumi's
 * dynamic-provider host; otherwise (tests, the CLI, a program) undefined.
 */
export function providerHostEngineAddress(argv: readonly string[] = process.argv): string | undefined {
  if (!/[\\/]@pulumi[\\/]pulumi[\\/]cmd[\\/]dynamic-provider([\\/]index\.js)?$/.test(argv[1] ?? "")) {
    return undefined;
  }
  const last = argv.at(-1) ?? "";
  return /^[^\s:]+:\d+$/.test(last) ? last : undefined;
}

/**
 * Calls `onGone` once `address` (host:port) refuses a connection. Probes every `intervalMs` without
 * keeping the process alive; returns a function that stops watching.
 */
export function watchEngine(
  address: string,
  onGone: () => void,
  intervalMs = ENGINE_PROBE_INTERVAL_MS,
): () => void {
  const colon = address.lastIndexOf(":");
  const host = address.slice(0, colon);
  const port = Number(address.slice(colon + 1));
  let stopped = false;
  const timer = setInterval(() => {
    const socket = net.connect({ host, port });
    socket.unref();
    socket.setTimeout(intervalMs, () => socket.destroy());
    // Closed before the HTTP/2 preface, as from a TCP health prober; the engine's gRPC server
    // drops such a connection without a log line.
    socket.once("connect", () => socket.end());
    socket.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "ECONNREFUSED" && !stopped) {
        stop();
        onGone();
      }
    });
  }, intervalMs);
  timer.unref();
  const stop = () => {
    stopped = true;
    clearInterval(timer);
  };
  return stop;
}

/** In the dynamic-provider host: exit once the engine is gone. Elsewhere: nothing. */
export function exitWithEngine(): void {
  const address = providerHostEngineAddress();
  if (!address) return;
  // Nothing is printed: the engine, which read the output, is gone.
  watchEngine(address, () => process.exit(1));
}
