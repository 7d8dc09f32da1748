/**
 * An S3-compatible object store in a process of its own, for Pulumi state shared by several runs
 * (the object-store end-to-end tests, the bench part `object-store`): SeaweedFS's `weed server`
 * with its master, one volume server, a filer and the S3 gateway, on free loopback ports, its data
 * and logs in a temporary folder, one bucket made and one access key allowed. `stop()` kills its
 * process group and removes everything it left, the Unix sockets it makes in /tmp included.
 *
 *   const store = await startObjectStore();
 *   // PULUMI_BACKEND_URL=store.backendUrl, with store.env (AWS_ACCESS_KEY_ID, ...)
 *   await store.stop();
 *
 * The binary is DIRECTMAIL_WEED when set (scripts/test.sh sets it), else what
 * scripts/ensure-seaweedfs.sh prints: the cached build, built first when missing.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

// Run from the source (tests) or from dist/scripts (the bench).
const repoRoot = path.resolve(
  __dirname,
  fs.existsSync(path.join(__dirname, "../package.json")) ? ".." : "../..",
);

export interface ObjectStore {
  /** The S3 endpoint, `http://127.0.0.1:<port>`. */
  endpoint: string;
  bucket: string;
  /**
   * Pulumi's backend URL for the bucket (`pulumi login <url>`): path-style requests to the
   * endpoint, a region (the AWS SDK wants one), and response checksums checked only where the
   * API requires them, since the store sends none and the SDK warns on stderr about each response.
   */
  backendUrl: string;
  /** The credentials Pulumi signs its requests with: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION. */
  env: Record<string, string>;
  /** The process id of `weed`, the leader of its own process group. */
  pid: number;
  /** The temporary folder of its data, configuration and log. */
  dir: string;
  /** The Unix sockets `weed` makes for its gRPC ports, at fixed paths in /tmp. */
  sockets: string[];
  /** The last `lines` lines of the store's log, to explain a failure. */
  logTail(lines?: number): string;
  /** Kills the process group, waits for it to exit, removes the data, the log and the sockets. */
  stop(): Promise<void>;
}

/** The path of the `weed` binary: DIRECTMAIL_WEED, or the cached build (built first when missing). */
export function weedBinary(): string {
  const fromEnv = process.env.DIRECTMAIL_WEED;
  if (fromEnv) return fromEnv;
  return execFileSync("bash", [path.join(repoRoot, "scripts/ensure-seaweedfs.sh")], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  }).trim();
}

/** `count` distinct free TCP ports on 127.0.0.1 (held together while chosen, then released). */
async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<net.Server>((resolve, reject) => {
          const server = net.createServer();
          server.once("error", reject);
          server.listen(0, "127.0.0.1", () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((s) => (s.address() as net.AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  return ports;
}

const READY_SECONDS = 60;

/** Starts the store and waits until the bucket takes a write. */
export async function startObjectStore(options: { bucket?: string } = {}): Promise<ObjectStore> {
  const weed = weedBinary();
  const bucket = options.bucket ?? "directmail-state";
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "directmail-object-store-"));
  const data = path.join(dir, "data");
  fs.mkdirSync(data);
  const [master, masterGrpc, volume, volumeGrpc, filer, filerGrpc, s3, s3Grpc] = (await freePorts(8)) as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const accessKey = "directmail-runner";
  const secretKey = `secret-${process.pid}-${Date.now()}`;
  const config = path.join(dir, "s3.json");
  fs.writeFileSync(
    config,
    JSON.stringify({
      identities: [
        {
          name: "runner",
          credentials: [{ accessKey, secretKey }],
          actions: ["Admin", "Read", "List", "Tagging", "Write"],
        },
      ],
    }),
  );
  const logFile = path.join(dir, "weed.log");
  const log = fs.openSync(logFile, "w");
  const child: ChildProcess = spawn(
    weed,
    [
      // Log to the file below, not to glog's files in /tmp.
      "-logtostderr",
      "server",
      "-ip=127.0.0.1",
      "-ip.bind=127.0.0.1",
      `-dir=${data}`,
      `-master.port=${master}`,
      `-master.port.grpc=${masterGrpc}`,
      "-master.volumeSizeLimitMB=64",
      `-volume.port=${volume}`,
      `-volume.port.grpc=${volumeGrpc}`,
      "-volume.max=16",
      "-volume.preStopSeconds=0",
      "-filer",
      `-filer.port=${filer}`,
      `-filer.port.grpc=${filerGrpc}`,
      `-filer.localSocket=${path.join(dir, "filer.sock")}`,
      "-s3",
      `-s3.port=${s3}`,
      `-s3.port.grpc=${s3Grpc}`,
      "-s3.port.iceberg=0",
      "-s3.port.lance=0",
      `-s3.localSocket=${path.join(dir, "s3.sock")}`,
      `-s3.config=${config}`,
    ],
    { cwd: dir, detached: true, stdio: ["ignore", log, log] },
  );
  fs.closeSync(log);
  const pid = child.pid as number;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let running = true;
  void exited.then(() => {
    running = false;
  });
  // The store must not outlive this process, however it ends.
  const killGroup = () => {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {}
  };
  process.once("exit", killGroup);

  const sockets = (
    [
      ["master", masterGrpc],
      ["volume", volumeGrpc],
      ["filer", filerGrpc],
      ["s3", s3Grpc],
    ] as const
  ).map(([name, port]) => `/tmp/seaweedfs-${name}-grpc-${port}.sock`);
  const stop = async () => {
    process.off("exit", killGroup);
    killGroup();
    await exited;
    fs.rmSync(dir, { recursive: true, force: true });
    // weed serves each gRPC port on a Unix socket at a fixed place in /tmp as well.
    for (const socket of sockets) fs.rmSync(socket, { force: true });
  };

  const logTail = (lines = 30) =>
    fs.existsSync(logFile) ? fs.readFileSync(logFile, "utf8").split("\n").slice(-lines).join("\n") : "";

  const endpoint = `http://127.0.0.1:${s3}`;
  const filerUrl = `http://127.0.0.1:${filer}`;
  try {
    const deadline = Date.now() + READY_SECONDS * 1000;
    const attempt = async (what: string, probe: () => Promise<boolean>) => {
      for (;;) {
        if (!running) throw new Error(`SeaweedFS exited before it was ready`);
        if (await probe().catch(() => false)) return;
        if (Date.now() > deadline)
          throw new Error(`SeaweedFS: timed out after ${READY_SECONDS} s waiting for ${what}`);
        await sleep(100);
      }
    };
    // The bucket is a folder of the filer's /buckets, its objects a collection of its own: a file
    // written there through the filer (and removed) shows that the bucket's volumes take writes.
    await attempt("the filer", async () => {
      const made = await fetch(`${filerUrl}/buckets/${bucket}/?op=mkdir`, { method: "POST" });
      return made.ok;
    });
    await attempt("a writable volume", async () => {
      const body = new FormData();
      body.append("file", new Blob(["ready"]), "ready");
      const put = await fetch(`${filerUrl}/buckets/${bucket}/ready`, { method: "POST", body });
      await put.arrayBuffer();
      if (!put.ok) return false;
      const removed = await fetch(`${filerUrl}/buckets/${bucket}/ready`, { method: "DELETE" });
      await removed.arrayBuffer();
      return removed.ok;
    });
    // Any answer of the S3 gateway (403 without a signature) shows that it listens.
    await attempt("the S3 gateway", async () => {
      const answer = await fetch(endpoint);
      await answer.arrayBuffer();
      return answer.status > 0;
    });
  } catch (error) {
    const tail = logTail(30);
    await stop();
    throw new Error(`${(error as Error).message}\n${tail}`);
  }

  return {
    endpoint,
    bucket,
    backendUrl:
      `s3://${bucket}?endpoint=${endpoint}&use_path_style=true&region=us-east-1` +
      "&response_checksum_validation=when_required",
    env: { AWS_ACCESS_KEY_ID: accessKey, AWS_SECRET_ACCESS_KEY: secretKey, AWS_REGION: "us-east-1" },
    pid,
    dir,
    sockets,
    logTail,
    stop,
  };
}
