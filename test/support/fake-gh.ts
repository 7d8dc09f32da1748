/**
 * A stand-in for the GitHub CLI's `gh api`, enough for the GitOps template's scripts/comment.sh:
 * the comments of a repository's issues in a JSON file (each with its author's login), the
 * identity of the token (`gh api user`), and every call recorded as "METHOD route".
 */
import * as fs from "node:fs";
import * as path from "node:path";

export interface FakeComment {
  id: number;
  issue: number;
  body: string;
  user: { login: string };
}

export interface FakeGitHub {
  /** The folder holding the `gh` executable: put it first on PATH. */
  bin: string;
  /** The environment `gh` reads: its state file, the repository, the token's login. */
  env: NodeJS.ProcessEnv;
  read(): { comments: FakeComment[]; calls: string[] };
  write(comments: FakeComment[]): void;
}

/** A fake `gh` in `dir`, acting as `login` (the identity of the token it is given). */
export function fakeGitHub(dir: string, repository: string, login: string): FakeGitHub {
  const bin = path.join(dir, "fake-gh-bin");
  const state = path.join(dir, "fake-gh.json");
  fs.mkdirSync(bin, { recursive: true });
  fs.writeFileSync(path.join(bin, "gh"), FAKE_GH, { mode: 0o755 });
  const write = (comments: FakeComment[]) => fs.writeFileSync(state, JSON.stringify({ comments, calls: [] }));
  write([]);
  return {
    bin,
    env: { FAKE_GH_STATE: state, FAKE_GH_LOGIN: login, GH_REPO: repository },
    read: () => JSON.parse(fs.readFileSync(state, "utf8")),
    write,
  };
}

const FAKE_GH = `#!/usr/bin/env node
const fs = require("node:fs");
const file = process.env.FAKE_GH_STATE;
const db = JSON.parse(fs.readFileSync(file, "utf8"));
const args = process.argv.slice(2);
if (args[0] !== "api") throw new Error("only gh api is faked: " + args.join(" "));
const option = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const method = option("--method") ?? "GET";
const login = process.env.FAKE_GH_LOGIN;
if (args[1] === "user") {
  db.calls.push("GET user");
  fs.writeFileSync(file, JSON.stringify(db));
  process.stdout.write(option("--jq") === ".login" ? login + "\\n" : JSON.stringify({ login }));
  process.exit(0);
}
const template = args.find((a) => a.startsWith("repos/"));
if (!template.startsWith("repos/{owner}/{repo}/")) throw new Error("the route names the repository: " + template);
const route = template.replace("{owner}/{repo}", process.env.GH_REPO);
db.calls.push(method + " " + route);
const body = () => fs.readFileSync(option("-F").replace(/^body=@/, ""), "utf8");
let match;
if (method === "GET" && (match = /issues\\/(\\d+)\\/comments/.exec(route))) {
  if (!args.includes("--paginate") || !args.includes("--slurp")) throw new Error("expected --paginate --slurp");
  process.stdout.write(JSON.stringify([db.comments.filter((c) => c.issue === Number(match[1]))]));
} else if (method === "POST" && (match = /issues\\/(\\d+)\\/comments$/.exec(route))) {
  const id = Math.max(0, ...db.comments.map((c) => c.id)) + 1;
  db.comments.push({ id, issue: Number(match[1]), body: body(), user: { login } });
} else if (method === "PATCH" && (match = /issues\\/comments\\/(\\d+)$/.exec(route))) {
  const comment = db.comments.find((c) => c.id === Number(match[1]));
  // As GitHub does for a token that may write the repository's comments: anyone's comment.
  comment.body = body();
} else {
  throw new Error("unexpected call: " + args.join(" "));
}
fs.writeFileSync(file, JSON.stringify(db));
`;
