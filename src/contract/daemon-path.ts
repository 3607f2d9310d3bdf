// Where every provider puts computerd inside a computer: Docker binds it there, Modal, Daytona
// and E2B install it there (root's alone), and the in-computer steps and the conformance cases
// run it from there.
export const DAEMON_IN_COMPUTER = "/opt/agentrun/computerd";
