// The suite's cases, in the report's group order.
import type { ConformanceCase } from "../case.js";
import { appsCases } from "./apps.js";
import { browserCases as browserOwnCases } from "./browser.js";
import { driftCases } from "./drift.js";
import { execCases } from "./exec.js";
import { filesCases } from "./files.js";
import { healthCases } from "./health.js";
import { inputCases } from "./input.js";
import { isolationCases } from "./isolation.js";
import { lifetimeCases } from "./lifetime.js";
import { mountCases } from "./mount.js";
import { processCases } from "./process.js";
import { providerCases } from "./provider.js";
import { browserScreenCases, screenCases } from "./screen.js";
import { settingsCases } from "./settings.js";
import { stateCases } from "./state.js";

/** Every case of the suite for a computer that runs computerd or answers its methods. */
export const conformanceCases: readonly ConformanceCase[] = [
  ...healthCases,
  ...execCases,
  ...filesCases,
  ...processCases,
  ...providerCases,
  ...driftCases,
  ...isolationCases,
  ...mountCases,
  ...screenCases,
  ...inputCases,
  ...settingsCases,
  ...appsCases,
  ...lifetimeCases,
  ...stateCases,
];

/** A browser's own cases: the health cases, then browser.* and its live view, release last. */
export const browserCases: readonly ConformanceCase[] = [...healthCases, ...browserOwnCases, ...browserScreenCases];
