/**
 * Turns on Node's compile cache (`module.enableCompileCache`) for the modules loaded after it, as
 * `bin/directmail.js` does for the CLI. Imported first by the package's entry points: the program's
 * (`index.ts`) and the dynamic-provider process's (`resources/implementation.ts`), which Pulumi
 * starts afresh for every command, so each `pulumi preview` or `up` compiled this package, zod,
 * yaml and undici again. The cache is Node's own (NODE_COMPILE_CACHE or the system's temporary
 * folder; NODE_DISABLE_COMPILE_CACHE turns it off); a Node.js without it (before 22.1) runs as before.
 */
import * as nodeModule from "node:module";

(nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();
