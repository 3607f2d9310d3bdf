// The Pod sandbox's pause program, built here: no registry serves the upstream pause image
// on these machines.
module agentrun.local/toolchain/pause

go 1.26.0
