// A browser's own labels, and the matching list and attach do themselves (a vendor's query takes
// one label; an account holds sessions no provider made).
/** The image a browser computer names: the vendor's own browser (the registry rows' default too). */
export const BROWSER_IMAGE = "chromium";
/**
 * The browser recipe's image says it is the one a spec's "chromium" names (a recipe's image is
 * otherwise known by its hash alone): so a desktop's image reads back as "chromium", not as its tag.
 */
export const RECIPE_IMAGE_LABEL = "agentrun.computer.recipe.image";

/** Every browser a provider made carries it, = "1". */
export const COMPUTER_LABEL = "agentrun.computer";
/** The computer's name (computer-<12 hex digits>). */
export const NAME_LABEL = "agentrun.computer.name";
/** A create's own mark, a value of its own: what it made is found by it when its outcome is unknown. */
export const CREATE_LABEL = "agentrun.create";

/** The labels a caller sees, as any provider's list shows them (its own namespace too): the create label left out. */
export function shownLabels(labels: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(labels).filter(([k]) => k !== CREATE_LABEL));
}

/** True when labels carry every wanted one, exactly. */
export function matchesAll(labels: Record<string, string>, wanted: Record<string, string>): boolean {
  return Object.entries(wanted).every(([k, v]) => labels[k] === v);
}

/** Made by this library: the computer label and a name. */
export function isOurs(labels: Record<string, string>): boolean {
  return labels[COMPUTER_LABEL] === "1" && typeof labels[NAME_LABEL] === "string";
}
