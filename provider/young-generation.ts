// The plugin's young generation held at the size it has once the plugin has made its provider
// (4 to 8 MiB: V8 doubles its first 1 MiB semi-spaces once or twice by then). A fleet's hundred steps at once
// keep enough alive across their awaits that V8 went on doubling it to its most, 32 MiB, a fifth
// of the plugin's peak RSS. A bound on the command line (--max-semi-space-size) would make V8
// refuse all code cached without it (Node's own and the start cache's), and the plugin starts on
// every preview; so growth is turned off once the start's cached code, the bundle's included, is loaded: V8 reads the
// factor each time it would grow the space, and a factor of 1 grows it by nothing. What Node loads
// after this compiles without its cached code (four built-in modules in a first call).
import { setFlagsFromString } from "node:v8";

export function holdYoungGeneration(): void {
  setFlagsFromString("--semi-space-growth-factor=1");
}
