/**
 * The declared recipient list of an `OrderRecipients`, read: where it is (a file inside the stack
 * owner's root, or inline), its file's signature, the figures a program already took of it, and
 * the one read kept between `check` and `create` or `update`.
 */
import * as path from "node:path";
import { chosenRoot, resolveInside } from "../../file-root";
import { memoryBudget } from "../../memory-budget";
import { projectRoot } from "../../project";
import {
  describeProblems,
  fileSignature,
  type RecipientSource,
  type RecipientSourceOptions,
  type RecipientSurvey,
  recipientList,
} from "../../recipients/index";
import { UserError } from "../user-error";
import { listChangedMidway, refusalOf } from "./guards";
import type { OrderRecipientsInputs, ProgramRead } from "./inputs";
import type { Declared } from "./sync";

/**
 * The engine calls `check` and then `create` or `update` in the same provider process: the last
 * file read is kept, keyed by its path, size, modification time and the options, so a large list
 * is read once per deployment rather than twice.
 */
let lastFileRead: { signature: string; loaded: RecipientSurvey } | undefined;

/** Where the declared recipients are, and how they are read. */
export function sourceOf(inputs: OrderRecipientsInputs): {
  source: RecipientSource;
  options: RecipientSourceOptions;
} {
  const options = {
    identityField: inputs.identityField,
    ...(inputs.keyColumn ? { keyColumn: inputs.keyColumn } : {}),
    ...(inputs.ignoreColumns ? { ignoreColumns: inputs.ignoreColumns } : {}),
  };
  const source: RecipientSource =
    inputs.file === undefined
      ? { inline: inputs.recipients ?? [] }
      : {
          file: inputs.file,
          relativeTo: projectRoot(),
          root: chosenRoot(inputs.fileRoot, projectRoot()),
          ...(inputs.delimiter !== undefined ? { delimiter: inputs.delimiter } : {}),
        };
  return { source, options };
}

/** The declared list surveyed, or the last read of its file if the file is as it was then. */
export async function load(inputs: OrderRecipientsInputs): Promise<RecipientSurvey> {
  memoryBudget().listStarted();
  const { source, options } = sourceOf(inputs);
  if ("inline" in source) return recipientList(source, options).survey();
  const signature = await signatureOf(inputs);
  if (signature !== undefined && lastFileRead?.signature === signature) return lastFileRead.loaded;
  const loaded = await recipientList(source, options).survey();
  lastFileRead = signature !== undefined ? { signature, loaded } : undefined;
  return loaded;
}

/**
 * The signature of the declared recipients file as it is now (fileSignature); undefined inline. A
 * file outside the stack owner's root is refused here (OutsideRootError), before anything of it is
 * read or a program's figures of it are taken.
 */
async function signatureOf(inputs: OrderRecipientsInputs): Promise<string | undefined> {
  const { source, options } = sourceOf(inputs);
  if ("inline" in source) return undefined;
  const file = source.root
    ? await resolveInside(source.root, source.file, projectRoot())
    : path.resolve(projectRoot(), source.file);
  return fileSignature(file, options, source.delimiter);
}

/**
 * The list's figures that a CampaignFolder's program found when it read the file (`programRead`),
 * if the file is still as it read it: a program that found any problem in the list stopped the
 * run before declaring it, so `check` need not read a large list a second time. Figures that are wrong (a program that says
 * so) cannot send anything wrong: create and update read the file, and refuse a list whose digest
 * is not the plan's.
 */
export async function programFigures(inputs: OrderRecipientsInputs): Promise<ProgramRead | undefined> {
  const read = inputs.programRead;
  return read !== undefined && read.signature === (await signatureOf(inputs)) ? read : undefined;
}

/** The surveyed list, with its rows to be read again where they are compared or sent. */
function declaredOf(inputs: OrderRecipientsInputs, scanned: RecipientSurvey): Declared {
  const { source, options } = sourceOf(inputs);
  const list = recipientList(source, options);
  return {
    scanned,
    rows: (only) => list.readAgain(scanned.set, () => listChangedMidway(inputs), only),
  };
}

/** The list that create or update applies: the last read it takes from check is not kept after. */
export async function loadChecked(inputs: OrderRecipientsInputs): Promise<Declared> {
  const loaded = await load(inputs).catch((error: unknown) => {
    throw refusalOf(error);
  });
  lastFileRead = undefined;
  if (loaded.problemCount > 0) {
    throw new UserError(
      [
        "the recipient list has problems; nothing was changed:",
        ...describeProblems(inputs.file ?? "recipients", loaded),
      ].join("\n  "),
      true,
    );
  }
  if (inputs.digest !== undefined && loaded.digest !== inputs.digest) throw listChangedMidway(inputs);
  return declaredOf(inputs, loaded);
}
