/** The Pulumi project's folder, which recipient file paths in the state are relative to. */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { projectRoot } from "../../../provider/project";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "directmail-project-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("projectRoot", () => {
  it("is the nearest folder upwards holding Pulumi.yaml or Pulumi.yml, as the pulumi CLI finds it", () => {
    const project = path.join(dir, "project");
    fs.mkdirSync(path.join(project, "program", "lib"), { recursive: true });
    fs.writeFileSync(path.join(project, "Pulumi.yaml"), "name: p\nruntime: nodejs\nmain: program/index.ts\n");
    expect(projectRoot(path.join(project, "program", "lib"))).toBe(project);
    expect(projectRoot(project)).toBe(project);

    const other = path.join(dir, "other", "src");
    fs.mkdirSync(other, { recursive: true });
    fs.writeFileSync(path.join(dir, "other", "Pulumi.yml"), "name: o\nruntime: nodejs\n");
    expect(projectRoot(other)).toBe(path.join(dir, "other"));
  });

  it("is the folder itself when no project file is above it", () => {
    const lone = path.join(dir, "lone");
    fs.mkdirSync(lone);
    expect(projectRoot(lone)).toBe(lone);
  });
});
